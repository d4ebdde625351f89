# lit configuration of tests/numeric: computations built and run by tes, checked against
# independent references (naive loops, the numpy subset) on seeded random inputs. It is
# tests/lit's configuration (binary, substitutions, environment) with this folder as the root.
import os

here = os.path.dirname(os.path.abspath(__file__))
lit_config.load_config(config, os.path.join(here, '..', 'lit', 'lit.cfg.py'))
config.name = 'tes-numeric'
config.test_source_root = here
config.test_exec_root = config.test_exec_root + '-numeric'
if 'python-reference' in config.available_features:
    config.unsupported = True  # they need the numpy subset and tvm.build: tes's own
