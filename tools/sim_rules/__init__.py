"""The simulator's rule table: simulator/src/rules/rule_table.yaml, the C++ enum generated from it
and the rule tables of simulator/README.md (``python -m tools.sim_rules``)."""
