func.func private @f(
