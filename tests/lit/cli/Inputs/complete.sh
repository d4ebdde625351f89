# complete.sh COMPLETION TES WORD...: sources the bash completion script COMPLETION and prints,
# one a line and sorted, what it offers for the command line "TES WORD..." with the cursor at
# the end of the last WORD (give "" to complete a new word), as bash would on TAB.
source "$1" || exit 1
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
# compopt only works under readline's TAB; here it says so on stderr and changes nothing
_tes 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
echo "($COMP_CWORD: ${#COMPREPLY[@]} offered)"
