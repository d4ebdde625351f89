# bash completion for tes: its options, the kinds and passes they take, and .tes files.
# Installed as <datadir>/bash-completion/completions/tes; from the source tree:
#   source docs/completion/tes.bash
# bash splits --emit=ir into "--emit" "=" "ir" (COMP_WORDBREAKS holds '='); both spellings
# are understood.

# .tes files and folders to descend into, starting with $1.
_tes_files() {
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -X '!*.tes' -- "$1") $(compgen -d -- "$1"))
}

# The values --emit= or --dump-after= (option $1) takes, starting with $2.
_tes_values() {
  local words
  case $1 in
    --emit) words="ir llvm cuda asm" ;;
    --dump-after)
      # the passes as tes names them in its error for an unknown one
      words=$("${COMP_WORDS[0]}" --dump-after=? 2>&1 |
        sed -n "s/.*unknown pass '?' (\(.*\))\$/\1/p" | tr -d ,) ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$2"))
}

_tes() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i w
  # the words before this one: once FILE or CODE is there, the rest are the script's ARGS
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case $w in
      -c) COMPREPLY=(); return ;;
      -i|--dump-ast|--)
        if ((i + 1 == COMP_CWORD)); then _tes_files "$cur"; return; fi
        compopt -o default 2>/dev/null; COMPREPLY=(); return ;;
      -*|=) ;;
      *) [[ ${COMP_WORDS[i-1]} == = ]] && continue
        compopt -o default 2>/dev/null; COMPREPLY=(); return ;;
    esac
  done
  if [[ $cur == = ]]; then _tes_values "$prev" ""; return; fi
  if [[ $prev == = ]]; then _tes_values "${COMP_WORDS[COMP_CWORD-2]}" "$cur"; return; fi
  case $cur in
    --emit=*|--dump-after=*)
      _tes_values "${cur%%=*}" "${cur#*=}"
      local v
      for v in "${!COMPREPLY[@]}"; do COMPREPLY[v]=${cur%%=*}=${COMPREPLY[v]}; done
      return ;;
    -*)
      COMPREPLY=($(compgen -W "-c -i --emit= --dump-after= --dump-ast --serve --version --help -h --" \
        -- "$cur"))
      [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
      return ;;
  esac
  _tes_files "$cur"
}
complete -F _tes tes
