"""``ascgen bench``: build the variants of a spec, run them, and report what was measured.

One module per job: ``points`` (sweeps), ``runner`` (one run of a program), ``session`` (the
whole bench), ``schema`` (results JSON), ``environment`` (the context block), ``stats``,
``noise`` (warnings), ``slo``, ``report`` / ``markdown`` / ``csvfile`` / ``plots`` (outputs),
``compare`` (two results files), ``command`` (the Click commands).
"""
