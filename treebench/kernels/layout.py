"""Column layout of the array-based tree shared by kernels and the tree layer.

A tree is three arrays: ``int_nodes (n_nodes, N_INT_FIELDS)``,
``float_nodes (n_nodes, N_FLOAT_FIELDS)`` and ``counts (n_nodes, k)``, plus a
flat ``catmap`` used by multiway nominal splits.  The children of a node are
the consecutive node ids ``child_start .. child_start + n_children - 1``.
"""

# int_nodes columns
FEATURE = 0  # split feature, -1 for a leaf
KIND = 1  # one of the node kinds below
CHILD_START = 2  # id of the first child
N_CHILDREN = 3
CATMAP_START = 4  # multiway: catmap[start + code] = child offset or -1
DEFAULT_CHILD = 5  # multiway: child for categories not seen at this node
CATEGORY = 6  # nominal binary: the category sent to child 0
DEPTH = 7
N_INT_FIELDS = 8

# float_nodes columns
THRESHOLD = 0  # numeric: x <= threshold goes to child 0
IMPURITY = 1  # the criterion's node value
SCORE = 2  # the split score of the chosen split (internal nodes)
N_FLOAT_FIELDS = 3

# node kinds
LEAF = 0
NUMERIC = 1
NOMINAL_MULTIWAY = 2
NOMINAL_BINARY = 3
