" .tes files are TES scripts, a Python subset: Python's highlighting and indentation fit.
" Copy to ~/.vim/ftdetect/tes.vim (Neovim: ~/.config/nvim/ftdetect/tes.vim).
au BufRead,BufNewFile *.tes set filetype=python
