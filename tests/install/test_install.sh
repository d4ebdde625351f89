#!/usr/bin/env bash
# test_install.sh: what `meson install` puts in place is a tes that works on its own. Installs
# the build into a temporary DESTDIR and, from a folder outside the checkout with neither
# TES_LLVM_PLUGIN nor TES_STDLIB set, runs the installed binary on kernel.tes (builds for
# "llvm" and "c", runs, checks with numpy, uses TOPI, exports). A copy of the binary alone,
# away from its install, names every place it looked for the plugin, and runs with
# TES_LLVM_PLUGIN. meson.build registers it:
#   tests/install/test_install.sh BUILD_DIR
# The last line is "N passed, M failed"; the exit status is non-zero when one failed.
set -uo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAILED: $*"
}
finish() {
  echo "$pass passed, $fail failed"
  (( fail == 0 ))
  exit
}

# Where meson installs tes and the plugin, and the prefix (without DESTDIR).
paths=$(meson introspect "$build" --installed --buildoptions 2>/dev/null | python3 -c '
import json, sys
info = json.load(sys.stdin)
dest = {src.rsplit("/", 1)[-1]: dst for src, dst in info["installed"].items()}
prefix = next(o["value"] for o in info["buildoptions"] if o["name"] == "prefix")
print(dest.get("tes", ""), dest.get("libtes-llvm.so", ""), prefix, dest.get("tes.1", "-"),
      dest.get("tes.bash", "-"))' 2>/dev/null)
read -r tes_at plugin_at prefix man_at completion_at <<<"$paths"
if [[ -z ${prefix:-} || -z $plugin_at ]]; then
  bad "meson introspect $build does not list tes and libtes-llvm.so as installed"
  finish
fi
ok

stage=$tmp/stage
if meson install -C "$build" --no-rebuild --quiet --destdir "$stage" >"$tmp/install.log" 2>&1 &&
    [[ -x $stage$tes_at && -f $stage$plugin_at ]]; then
  ok
else
  cat "$tmp/install.log"
  bad "meson install --destdir did not install $tes_at and $plugin_at"
  finish
fi

# The man page tes(1) and bash completion, installed where man and bash-completion look.
if [[ $man_at == */share/man/man1/tes.1 && -f $stage$man_at ]]; then ok; else
  bad "meson install did not install the man page as <prefix>/share/man/man1/tes.1 ($man_at)"
fi
if command -v groff >/dev/null; then
  # -ww: every warning; -z: render without output, so stderr holds nothing but warnings
  warnings=$(groff -man -Tutf8 -ww -z "$stage$man_at" 2>&1)
  rendered=$(groff -man -Tascii -P-cbu "$stage$man_at" 2>/dev/null)
  if [[ -z $warnings && $rendered == *"tes - run scripts"*"EXIT STATUS"* ]]; then ok; else
    bad "groff renders the installed tes.1 with warnings: $warnings"
  fi
else
  echo "note: no groff here, so the man page's rendering is not checked"
fi
if [[ $completion_at == */share/bash-completion/completions/tes && -f $stage$completion_at ]] &&
    bash -n "$stage$completion_at"; then ok; else
  bad "meson install did not install bash completion as .../bash-completion/completions/tes"
fi

# From a folder outside the checkout, with nothing but the installed files to go on.
mkdir -p "$tmp/away/out"
cp "$here/kernel.tes" "$tmp/away/"
cd "$tmp/away"
expected=$'llvm: ok, sum 1022.6969\ntopi: ok\nc: True\nexported'
# LD_DEBUG=files has the loader say which libtes-llvm.so it opened.
out=$(env -u TES_LLVM_PLUGIN -u TES_STDLIB LD_DEBUG=files "$stage$tes_at" kernel.tes out \
  2>"$tmp/err")
status=$?
if [[ $status == 0 && $out == "$expected" ]]; then ok; else
  grep -v '^ *[0-9]*:' "$tmp/err"
  bad "the installed tes on kernel.tes: exit status $status, output '$out'"
fi
if grep -q "file=$stage$plugin_at .*dynamically loaded" "$tmp/err"; then ok; else
  bad "the installed tes did not load the installed plugin $stage$plugin_at"
fi
if grep -q 'int32_t mul_add(' out/libmul_add.h 2>/dev/null && [[ -s out/libmul_add.so ]]; then ok
else bad "export_library by the installed tes made no out/libmul_add.so and header"; fi

# The binary copied elsewhere alone: it looks beside itself, one folder up, in the install's
# plugin folder reached from its own, and where the plugin was configured to be installed.
mkdir -p "$tmp/alone"
cp "$stage$tes_at" "$tmp/alone/tes"
if [[ -e $plugin_at ]]; then
  echo "note: $plugin_at exists on this machine (tes is installed), so the copy finds it"
else
  out=$(env -u TES_LLVM_PLUGIN "$tmp/alone/tes" kernel.tes out 2>&1)
  status=$?
  want=("$tmp/alone/libtes-llvm.so" "$tmp/libtes-llvm.so" "$tmp/${plugin_at#"$prefix"/}"
    "$plugin_at" "set TES_LLVM_PLUGIN")
  missing=
  for w in "${want[@]}"; do [[ $out == *"$w"* ]] || missing+=" '$w'"; done
  if [[ $status == 1 && -z $missing ]]; then ok; else
    printf '%s\n' "$out"
    bad "a copy of tes with no plugin near it: exit status $status, error lacks$missing"
  fi
fi
out=$(TES_LLVM_PLUGIN=$stage$plugin_at "$tmp/alone/tes" kernel.tes out 2>&1)
status=$?
if [[ $status == 0 && $out == "$expected" ]]; then ok; else
  bad "a copy of tes with TES_LLVM_PLUGIN: exit status $status, output '$out'"
fi
finish
