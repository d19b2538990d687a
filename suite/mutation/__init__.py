"""Mutation testing of the reference scrubber, the corpus run as the test (`scrubcheck mutate`).

The layers look down: `mutants` (cosmic-ray's operators: the sites, the seeded sample,
each mutant's code and stable id) and `equivalents` (the committed list of mutants no
input can tell apart, with the reason) feed `oracle` (the corpus run against a mutated
copy of the package), `session` sorts the verdicts, `report` writes reports/mutation.md.

Why cosmic-ray and not mutmut: the test here is a corpus run, not pytest. mutmut 3
drives pytest only; cosmic-ray's operators and `mutate_code` work on any source text.
Its `exec` is not used, because it rewrites the module in place: in a shared checkout
that would hand every other user of the reference (the harness's own yardstick among
them) the mutant for the length of the run.
"""
