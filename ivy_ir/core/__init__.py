"""The core of ivy_ir, below the passes: graph building and tracing, modules and their
text, decompositions, and the reference semantics (rule tables and evaluator).

It knows the dialect and no framework; everything above builds on it.
"""
