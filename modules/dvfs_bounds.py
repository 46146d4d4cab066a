"""What DVFS parameters can mean, for the model (``cpu_scaling.CpuScaling``)
and the command line alike; kept apart so that the command's parser reads
them without importing the model.

A processor has a few dozen frequency levels at most (and the level search
keeps a table of every pair of them); its lowest is rarely under a third of
nominal: at 10 % and beta 2 a job runs 100 times longer, and slower levels
stall the clock.  beta (runtime ~ 1/f^beta) is 0 for a job the frequency
does not slow, 1 for one bound by compute, and PuPPET's Fig. 12 goes to 2.
A change of level costs microseconds: an hour lost at each is far beyond,
and a latency past the clock's resolution froze the run.
"""

MAX_LEVELS = 100
LOWEST_LEVEL = 0.1
MAX_BETA = 2.0
MAX_LATENCY = 3600.0
