from .client import Porsline

__all__ = ["Porsline"]