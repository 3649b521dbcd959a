"""The engine for research: what a seat knows (:mod:`.knowledge`), worlds drawn from it
(:mod:`.worlds`), actions and observations as numbers (:mod:`.encoding`) and a PettingZoo
environment (:mod:`.env`, with the ``research`` extra: ``pip install
'three-thirteen[research]'``). Nothing here is imported by the service."""
