"""ascgen: a declarative pipeline DSL and C++ AscendCL code generator."""

__version__ = "0.1.0"
