"""Weka inside this process through JPype: one JVM per worker instead of two per trial.

The command-line route of :mod:`treebench.learners.weka` starts ``java``
twice per trial (about 1.5 s); leave-one-out on a few thousand cases then
costs far more in JVM starts than in trees.  With JPype installed the same
Weka classes run in a JVM started once in each worker process, on the same
ARFF text and the same options, so the trees and predictions are the ones
the command line gives (``tests/test_weka.py`` checks both routes agree).

Engine choice: ``TREEBENCH_WEKA_ENGINE`` = ``auto`` (default: this module
when JPype imports, else ``java``), ``jpype`` or ``java``.  A JVM cannot be
restarted or carried across ``fork``, so a process that did not start the
JVM itself (a forked child) falls back to the command line.
``TREEBENCH_WEKA_TIMEOUT`` bounds command-line calls only: a call into the
JVM cannot be interrupted from Python.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

ENGINES = ("auto", "jpype", "java")

#: pid of the process that started the JVM (``None``: not started here).
_STARTED_BY: int | None = None


def requested_engine() -> str:
    """``TREEBENCH_WEKA_ENGINE``, checked against :data:`ENGINES`."""
    engine = os.environ.get("TREEBENCH_WEKA_ENGINE", "auto").strip().lower() or "auto"
    if engine not in ENGINES:
        raise TreebenchError(
            f"TREEBENCH_WEKA_ENGINE={engine!r} is invalid; accepted: {', '.join(ENGINES)}"
        )
    return engine


def jpype_missing() -> str | None:
    """``None`` when JPype imports, else why not."""
    try:
        import jpype  # noqa: F401
    except ImportError as exc:
        return f"JPype is not installed ({exc}); pip install JPype1"
    return None


def use_jpype() -> bool:
    """Whether this process should run Weka in-process (see the module docstring)."""
    engine = requested_engine()
    if engine == "java":
        return False
    missing = jpype_missing()
    if missing is not None:
        if engine == "jpype":
            raise TreebenchError(f"TREEBENCH_WEKA_ENGINE=jpype but {missing}")
        return False
    import jpype

    if jpype.isJVMStarted():
        return _STARTED_BY == os.getpid()  # a forked copy of a JVM does not work
    return True


def _start(jar: Path, java_options: list[str]) -> None:
    global _STARTED_BY
    import jpype

    if jpype.isJVMStarted():
        return
    # -Xss sizes threads Java starts; the calling (Python) thread keeps its own stack
    jpype.startJVM(*java_options, classpath=[str(jar)], convertStrings=True)
    _STARTED_BY = os.getpid()


def _instances(arff: str) -> Any:
    import jpype

    reader = jpype.JClass("java.io.StringReader")(arff)
    data = jpype.JClass("weka.core.Instances")(reader)
    data.setClassIndex(data.numAttributes() - 1)
    return data


@lru_cache(maxsize=1)
def _instance_class() -> Any:
    """Weka's dense instance: ``weka.core.DenseInstance`` (>= 3.7) or ``weka.core.Instance`` (3.6)."""
    import jpype

    try:
        return jpype.JClass("weka.core.DenseInstance")
    except TypeError:
        return jpype.JClass("weka.core.Instance")


def _filled(header: str, values: np.ndarray) -> Any:
    """The dataset of the ARFF ``header`` holding the rows of ``values`` (weight 1, NaN missing).

    The same instances the ARFF parser makes from the text of those rows: the header declares
    the attributes, and every value is the double (or nominal index) the parser would read,
    handed over as one Java ``double[][]`` instead of being printed and parsed.
    """
    import jpype

    data = _instances(header)
    rows = jpype.JArray(jpype.JDouble, 2)(np.ascontiguousarray(values, dtype=np.float64))
    make, add = _instance_class(), data.add
    for row in rows:
        add(make(1.0, row))
    return data


@lru_cache(maxsize=1)
def _factory() -> Any:
    """The Java class whose static ``forName`` builds a classifier from its name and options."""
    import jpype

    try:  # Weka >= 3.7
        return jpype.JClass("weka.classifiers.AbstractClassifier")
    except TypeError:  # Weka 3.6: the abstract base class holds forName
        return jpype.JClass("weka.classifiers.Classifier")


def _classifier(name: str, options: list[str]) -> Any:
    import jpype

    return _factory().forName(name, jpype.JArray(jpype.JString)(options))


def train(jar: Path, java_options: list[str], arguments: list[str], header: str,
          values: np.ndarray) -> tuple[Any, str, Any]:
    """Build ``arguments[0]`` with options ``arguments[1:]`` on the rows ``values`` of the ARFF ``header``.

    Returns
    -------
    (classifier, text, data):
        The trained Java object, its ``toString()`` (the model as the
        command line prints it: leaves, tree size, chosen options) and the
        training dataset it was built on (Weka's classifiers train on their own
        copy), which :func:`classify` can predict without converting the rows again.
    """
    _start(jar, java_options)
    import jpype

    try:
        classifier = _classifier(arguments[0], list(arguments[1:]))
        data = _filled(header, values)
        classifier.buildClassifier(data)
    except jpype.JException as exc:
        raise TreebenchError(f"weka-j48: {arguments[0]} failed in the JVM: {exc}") from None
    return classifier, str(classifier.toString()), data


def predict(classifier: Any, header: str, values: np.ndarray, n_rows: int) -> np.ndarray:
    """0-based predicted class indices of the rows ``values`` (class column NaN: missing)."""
    import jpype

    try:
        data = _filled(header, values)
    except jpype.JException as exc:
        raise TreebenchError(f"weka-j48: prediction failed in the JVM: {exc}") from None
    return classify(classifier, data, n_rows)


def classify(classifier: Any, data: Any, n_rows: int) -> np.ndarray:
    """0-based predicted class indices of every instance of the Java dataset ``data``."""
    import jpype

    try:
        found = [int(classifier.classifyInstance(data.instance(i))) for i in range(data.numInstances())]
    except jpype.JException as exc:
        raise TreebenchError(f"weka-j48: prediction failed in the JVM: {exc}") from None
    if len(found) != n_rows:
        raise TreebenchError(f"weka-j48: expected {n_rows} predictions from Weka, got {len(found)}")
    return np.asarray(found, dtype=np.int64)
