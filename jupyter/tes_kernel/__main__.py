"""`python3 -m tes_kernel -f CONNECTION_FILE` runs the kernel (what kernel.json says);
`python3 -m tes_kernel install [...]` registers it."""

import sys


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "install":
        from .install import main as install
        return install(sys.argv[2:])
    from ipykernel.kernelapp import IPKernelApp

    from .kernel import TesKernel
    IPKernelApp.launch_instance(kernel_class=TesKernel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
