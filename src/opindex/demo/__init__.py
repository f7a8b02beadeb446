"""``opindex demo``: a sandbox OpenProject, a sync with progress, and a guided search tour."""

from opindex.demo.demo_run import DemoOptions, run_demo
from opindex.demo.tour import TOUR, StepOutcome, TourStep

__all__ = ["TOUR", "DemoOptions", "StepOutcome", "TourStep", "run_demo"]
