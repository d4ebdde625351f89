"""`python3 -m tes_kernel install [--user | --prefix P | --sys-prefix] [--name NAME]`: registers
the kernelspec (kernel.json) with Jupyter."""

import argparse
import json
import os
import sys
import tempfile


def kernel_json(display_name="TES"):
    return {
        "argv": [sys.executable, "-m", "tes_kernel", "-f", "{connection_file}"],
        "display_name": display_name,
        "language": "tes",
        "interrupt_mode": "signal",
    }


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m tes_kernel install",
                                description="Register the tes kernel with Jupyter.")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="for this user (~/.local/share/jupyter/kernels)")
    where.add_argument("--prefix", metavar="P",
                       help="under P/share/jupyter/kernels (a virtual environment, a conda env)")
    where.add_argument("--sys-prefix", action="store_true",
                       help="under sys.prefix (%s)" % sys.prefix)
    p.add_argument("--name", default="tes", help="the kernel's name (default: tes)")
    p.add_argument("--display-name", default="TES", help="its name in menus (default: TES)")
    args = p.parse_args(argv)

    from jupyter_client.kernelspec import KernelSpecManager

    prefix = sys.prefix if args.sys_prefix else args.prefix
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "kernel.json"), "w") as f:
            json.dump(kernel_json(args.display_name), f, indent=1)
            f.write("\n")
        dest = KernelSpecManager().install_kernel_spec(d, args.name, user=args.user,
                                                       prefix=prefix)
    print("installed the tes kernelspec in %s" % dest)
    return 0
