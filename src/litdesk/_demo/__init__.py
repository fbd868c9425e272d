"""The offline demo workspace's bundled data files (``data/``; see its PROVENANCE.md).
Read through :mod:`litdesk.adapters.demo`; made by ``tools/build_demo_data.py``."""
