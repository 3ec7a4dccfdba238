"""On PYTHONPATH, makes `import matplotlib` fail in this interpreter and its children: a host without the extra."""
import sys


class _NoMatplotlib:
    """A meta-path finder that refuses matplotlib, as if requirements-pictures.txt was never installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoMatplotlib())
