"""Reference learners backed by external programs (Weka's J48).

The runner's registry of baselines is :mod:`treebench.experiment.baselines`;
this package holds the implementations that need more than scikit-learn.
"""
