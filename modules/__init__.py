"""HPC subnets and the plain functions their inscriptions call.

Layering: ``modules`` may import ``cpn``; it never imports ``nets``.
"""
