;;; tes.el --- open .tes files (TES scripts, a Python subset) in python-mode
;; Add to your init file, or (load "/path/to/tes.el") from it.
(add-to-list 'auto-mode-alist '("\\.tes\\'" . python-mode))
(provide 'tes)
;;; tes.el ends here
