"""``ascgen tune``: the best configuration of a spec under an objective and an SLO.

space.py parses ``--space``; goal.py holds the objective, the SLO and the Pareto front;
search.py is the pure search (planner first, then a quick search and a neighbourhood
search over a Measurer); measure.py measures with the bench's machinery; spec_edit.py
writes the winning spec; report.py and pareto.py write the summary; command.py is the CLI.
"""
