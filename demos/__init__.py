"""Human demonstrations: recording in the browser, the demo file format, replay, and
conversion to training data (see demos/FORMAT.md)."""

from demos.convert import DemoDataset, load
from demos.format import Demo, DemoFormatError, load_demo, save_demo

__all__ = ["Demo", "DemoDataset", "DemoFormatError", "load", "load_demo", "save_demo"]
