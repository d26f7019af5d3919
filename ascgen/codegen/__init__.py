"""Code generation: Plan -> Program IR (lower) -> C++/CMake text (render)."""
