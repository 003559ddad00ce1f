"""PySpark functions that decode and evolve registry-framed data (a later issue).

The only package allowed to import pyspark.
"""
