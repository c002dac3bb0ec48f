"""``python -m evals.gate``: the documented name of the command-line CI gate,
kept working. The gate's command line is ``evals.cli``; its rules are
``evals.core.gate``'s."""

from evals.cli import run

if __name__ == "__main__":
    run()
