;;; llmster-comint-test.el --- The llmster REPL inside Emacs: comint (M-x shell) and term.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run with
;;   LLMSTER_BIN_DIR=$(swift build --show-bin-path) emacs --batch -Q \
;;     -l contrib/emacs/test/llmster-comint-test.el -f ert-run-tests-batch-and-exit
;; Runs `llmster --demo' (its own simulator, a temporary library) in a comint buffer as M-x shell
;; would: TERM=dumb, INSIDE_EMACS=VERSION,comint, lines sent with `comint-send-input', SGR turned into
;; faces by ansi-color; in eshell, which gives it a pty too; in a term.el buffer as M-x term
;; would; and in vterm when it is installed (Debian: elpa-vterm).  Needs no llmster.el.

;;; Code:

(require 'ert)
(require 'comint)
(require 'ansi-color)
(require 'term)
(require 'eshell)
(require 'shell)

(defvar llmster-comint-test--bin-dir
  (let ((dir (getenv "LLMSTER_BIN_DIR")))
    (unless (and dir (file-executable-p (expand-file-name "llmster" dir)))
      (error "Set LLMSTER_BIN_DIR to the directory of the built llmster (swift build --show-bin-path)"))
    dir))

(defmacro llmster-comint-test--with-home (&rest body)
  "Run BODY with `process-environment' pointing llmster at a fresh temporary home."
  (declare (indent 0))
  `(let* ((home (make-temp-file "llmster-comint-" t))
          (process-environment (append (list (concat "XDG_DATA_HOME=" home "/data")
                                             (concat "XDG_CONFIG_HOME=" home "/config")
                                             (concat "XDG_STATE_HOME=" home "/state")
                                             (concat "HOME=" home)
                                             "LANG=C.UTF-8" "LC_ALL=" "NO_COLOR=" "PAGER=")
                                       process-environment)))
     (unwind-protect (progn ,@body)
       (delete-directory home t))))

(defun llmster-comint-test--wait (predicate &optional process)
  "Accept output of PROCESS until PREDICATE holds; fail after 60 seconds, with the end of the buffer."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output process 0.05))
    (unless (funcall predicate)
      (ert-fail (list "waited in vain; the buffer ends with"
                      (buffer-substring-no-properties (max (point-min) (- (point-max) 1200)) (point-max)))))))

(defun llmster-comint-test--wait-for (text from)
  "Wait until the current buffer holds TEXT after position FROM; return where it starts."
  (llmster-comint-test--wait
   (lambda () (save-excursion (goto-char from) (search-forward text nil t)))
   (get-buffer-process (current-buffer)))
  (save-excursion (goto-char from) (search-forward text) (match-beginning 0)))

(defun llmster-comint-test--prompted-p ()
  "Whether the output ends with the REPL's prompt."
  (let ((mark (process-mark (get-buffer-process (current-buffer)))))
    (and (>= (- mark (point-min)) 2)
         (equal (buffer-substring-no-properties (- mark 2) mark) "› "))))

(defun llmster-comint-test--enter (line)
  "Type LINE after the prompt and send it as M-x shell's RET does; return where the output starts."
  (goto-char (point-max))
  (insert line)
  (comint-send-input)
  (let ((start (point-max)))
    (llmster-comint-test--wait
     (lambda () (and (> (process-mark (get-buffer-process (current-buffer))) start)
                     (llmster-comint-test--prompted-p)))
     (get-buffer-process (current-buffer)))
    start))

(defun llmster-comint-test--faces-at (position)
  "The faces at POSITION, from text properties and overlays."
  (append (list (get-text-property position 'face) (get-text-property position 'font-lock-face))
          (mapcar (lambda (overlay) (overlay-get overlay 'face)) (overlays-at position))))

(defun llmster-comint-test--bold-face-p (face)
  "Whether FACE (a name, an attribute list, or a list of those) makes text bold."
  (cond ((null face) nil)
        ;; In batch the faces' specs are not applied to a frame: ansi-color's and term.el's bold faces by name.
        ((symbolp face) (or (memq face '(bold ansi-color-bold term-bold))
                            (and (facep face) (eq (face-attribute face :weight nil t) 'bold))))
        ((keywordp (car-safe face))
         (or (eq (plist-get face :weight) 'bold) (llmster-comint-test--bold-face-p (plist-get face :inherit))))
        ((consp face) (seq-some #'llmster-comint-test--bold-face-p face))))

(defun llmster-comint-test--bold-p (position)
  "Whether the text at POSITION is shown bold."
  (seq-some #'llmster-comint-test--bold-face-p (llmster-comint-test--faces-at position)))

(defmacro llmster-comint-test--with-repl (&rest body)
  "Run BODY in a comint buffer running `llmster --demo' that showed its first prompt."
  (declare (indent 0))
  `(llmster-comint-test--with-home
     (let ((buffer (generate-new-buffer "*llmster-comint*"))
           (coding-system-for-read 'utf-8-unix)
           (coding-system-for-write 'utf-8-unix))
       (unwind-protect
           (with-current-buffer buffer
             (ansi-color-for-comint-mode-on)
             (make-comint-in-buffer "llmster" buffer (expand-file-name "llmster" llmster-comint-test--bin-dir) nil "--demo")
             (set-process-query-on-exit-flag (get-buffer-process buffer) nil)
             (llmster-comint-test--wait #'llmster-comint-test--prompted-p (get-buffer-process buffer))
             ,@body)
         (when (get-buffer-process buffer) (delete-process (get-buffer-process buffer)))
         (kill-buffer buffer)))))

(ert-deftest llmster-comint-test-messages-get-rendered-replies-with-faces ()
  "In M-x shell a line ended by LF is sent and the reply is Markdown shown with faces, no escape left over."
  (llmster-comint-test--with-repl
    (let* ((start (llmster-comint-test--enter "echo:Hello **bold** world and `code`."))
           (reply (llmster-comint-test--wait-for "Hello bold world and code." start)))
      (should (llmster-comint-test--bold-p (+ reply (length "Hello "))))
      (should-not (llmster-comint-test--bold-p reply))
      (let ((stats (llmster-comint-test--wait-for "tok/s" reply)))
        (should-not (string-match-p "\\*\\*\\|`" (buffer-substring-no-properties start stats)))))
    (let ((start (llmster-comint-test--enter "name three things")))
      (llmster-comint-test--wait-for "• it has 3 words" start)
      (llmster-comint-test--wait-for "let words = 3" start))
    (should-not (string-match-p "[\e\r]" (buffer-substring-no-properties (point-min) (point-max))))
    (should-not (string-match-p "\\^J\\|\\[\\?2004" (buffer-string)))))

(ert-deftest llmster-comint-test-slash-commands-and-multi-line-messages ()
  "Slash commands run, and a \"\"\" block sent line by line is one message."
  (llmster-comint-test--with-repl
    (let ((start (llmster-comint-test--enter "/ps")))
      (llmster-comint-test--wait-for "acme/tiny-1b" start))
    (let ((start (llmster-comint-test--enter "/help")))
      (llmster-comint-test--wait-for "/quit" start))
    (goto-char (point-max))
    (insert "\"\"\"")
    (comint-send-input)
    (llmster-comint-test--wait-for "… " (line-beginning-position))
    (goto-char (point-max))
    (insert "echo:first line")
    (comint-send-input)
    (goto-char (point-max))
    (insert "second line")
    (comint-send-input)
    (let ((start (llmster-comint-test--enter "\"\"\"")))
      (llmster-comint-test--wait-for "first line second line" start))
    (should-not (string-match-p "\e" (buffer-string)))))

(ert-deftest llmster-comint-test-tables-fit-the-width-the-pty-reports ()
  "A table in the reply is laid out to the columns Emacs gave the pty."
  (llmster-comint-test--with-repl
    (set-process-window-size (get-buffer-process (current-buffer)) 30 44)
    (dolist (line '("\"\"\"" "echo:| name | description |" "|---|---|"
                    "| alpha | a rather long cell that cannot fit in forty-four columns at all |" "| beta | short |"))
      (goto-char (point-max))
      (insert line)
      (comint-send-input))
    (let* ((start (llmster-comint-test--enter "\"\"\""))
           (top (llmster-comint-test--wait-for "┌" start))
           (bottom (llmster-comint-test--wait-for "┘" top)))
      (dolist (line (split-string (buffer-substring-no-properties top (1+ bottom)) "\n"))
        (should (<= (string-width line) 44))))))

(ert-deftest llmster-comint-test-ctrl-c-cancels-the-reply-and-ctrl-d-quits ()
  "comint's C-c C-c (SIGINT) cancels a streaming reply or the typed line; C-c C-d (EOF) ends the REPL with status 0."
  (llmster-comint-test--with-repl
    (goto-char (point-max))
    (insert "[[sim:stall=60,delta=300]] echo:" (mapconcat #'identity (make-list 200 "alpha") " ") " omega")
    (comint-send-input)
    (let ((start (point-max)))
      (llmster-comint-test--wait-for "alpha alpha" start)
      (comint-interrupt-subjob)
      (llmster-comint-test--wait-for "incomplete" start)
      (llmster-comint-test--wait #'llmster-comint-test--prompted-p (get-buffer-process (current-buffer)))
      (should-not (string-match-p "omega" (buffer-substring-no-properties start (point-max)))))
    (let ((start (llmster-comint-test--enter "echo:still here")))
      (llmster-comint-test--wait-for "still here" start))
    (goto-char (point-max))
    (insert "typed, then thought better of it")
    (let ((start (point-max)))
      (comint-interrupt-subjob)
      (llmster-comint-test--wait-for "› " start)
      (should (process-live-p (get-buffer-process (current-buffer)))))
    (let ((process (get-buffer-process (current-buffer))))
      (comint-send-eof)
      (llmster-comint-test--wait (lambda () (not (process-live-p process))) process)
      (should (eq (process-exit-status process) 0)))))

;; The REPL's prompt is "› ": a line typed while a reply streams is echoed by comint in the middle of the
;; reply, and printed again after its own prompt when its turn comes.
(ert-deftest llmster-comint-test-a-line-typed-during-a-reply-is-shown-at-its-own-prompt ()
  "A line typed while a reply streams is shown after its own prompt as typed; a refused message is kept, and Enter
on an empty line sends it again."
  (llmster-comint-test--with-repl
    (goto-char (point-max))
    (insert "[[sim:stall=2]] echo:slow one two three four")
    (comint-send-input)
    (let ((start (point-max)))
      (llmster-comint-test--wait-for "slow" start)
      (goto-char (point-max))
      (insert "echo:queued line here")
      (comint-send-input)
      (llmster-comint-test--wait-for "› echo:queued line here\nqueued line here" start)
      (llmster-comint-test--wait #'llmster-comint-test--prompted-p (get-buffer-process (current-buffer))))
    ;; A file too large for the context: declining to send past it keeps the message, and after /context drop,
    ;; Enter alone sends it.
    (let ((file (expand-file-name "big.txt" home)))
      (with-temp-file file (dotimes (_ 4000) (insert "word ")))
      (llmster-comint-test--enter (concat "/file " file)))
    (goto-char (point-max))
    (insert "echo:kept for later")
    (comint-send-input)
    (llmster-comint-test--wait-for "N: not now [" (point-min))
    (let ((start (llmster-comint-test--enter "n")))
      ;; The notice wraps at the window's width: its words are looked for across the line break.
      (llmster-comint-test--wait
       (lambda () (save-excursion
                    (goto-char start)
                    (re-search-forward (replace-regexp-in-string
                                        " " "[ \n]+" (regexp-quote "Nothing sent; the message is kept, with its items (/context lists them): Enter on an empty line sends it again."))
                                       nil t)))
       (get-buffer-process (current-buffer))))
    (llmster-comint-test--wait-for "Dropped " (llmster-comint-test--enter "/context drop 1"))
    (let ((start (llmster-comint-test--enter "")))
      (llmster-comint-test--wait-for "kept for later" start)
      (should-not (string-match-p "Nothing sent" (buffer-substring-no-properties start (point-max)))))))

(ert-deftest llmster-comint-test-m-x-shell-runs-the-repl-from-bash ()
  "M-x shell as a user has it: bash in shell-mode starts the REPL, which sends, cancels and quits back to bash."
  (skip-unless (file-executable-p "/bin/bash"))
  (llmster-comint-test--with-home
    (let* ((process-environment (cons "PS1=shell> " process-environment))
           (explicit-shell-file-name "/bin/bash")
           (explicit-bash-args '("--noprofile" "--norc" "-i"))
           (coding-system-for-read 'utf-8-unix)
           (buffer (shell (generate-new-buffer "*llmster-shell*"))))
      (unwind-protect
          (with-current-buffer buffer
            (set-process-query-on-exit-flag (get-buffer-process buffer) nil)
            (llmster-comint-test--wait-for "shell> " (point-min))
            (goto-char (point-max))
            (insert (shell-quote-argument (expand-file-name "llmster" llmster-comint-test--bin-dir)) " --demo")
            (comint-send-input)
            (llmster-comint-test--wait #'llmster-comint-test--prompted-p (get-buffer-process buffer))
            (let* ((start (llmster-comint-test--enter "echo:Hello **bold** from M-x shell"))
                   (reply (llmster-comint-test--wait-for "Hello bold from M-x shell" start)))
              (should (llmster-comint-test--bold-p (+ reply (length "Hello ")))))
            (llmster-comint-test--wait-for "INSTANCE" (llmster-comint-test--enter "/ps"))
            (goto-char (point-max))
            (insert "[[sim:stall=60,delta=300]] echo:" (mapconcat #'identity (make-list 200 "alpha") " ") " omega")
            (comint-send-input)
            (let ((start (point-max)))
              (llmster-comint-test--wait-for "alpha alpha" start)
              (comint-interrupt-subjob)
              (llmster-comint-test--wait-for "incomplete: cancelled" start)
              (llmster-comint-test--wait #'llmster-comint-test--prompted-p (get-buffer-process buffer)))
            (comint-send-eof)
            (llmster-comint-test--wait (lambda () (not (llmster-comint-test--prompted-p))) (get-buffer-process buffer))
            (let ((start (point-max)))
              (goto-char (point-max))
              (insert "echo back in bash: $?")
              (comint-send-input)
              (llmster-comint-test--wait-for "back in bash: 0" start))
            (should-not (string-match-p "\e" (buffer-substring-no-properties (point-min) (point-max)))))
        (when (get-buffer-process buffer) (delete-process (get-buffer-process buffer)))
        (kill-buffer buffer)))))

(ert-deftest llmster-comint-test-eshell-runs-the-repl-in-line-mode ()
  "In eshell (INSIDE_EMACS=VERSION,eshell, a pty) lines are sent and the reply is shown with faces."
  (llmster-comint-test--with-home
    (let* ((coding-system-for-read 'utf-8-unix)
           (eshell-buffer-name "*llmster-eshell*")
           (buffer (eshell t)))
      (unwind-protect
          (with-current-buffer buffer
            (let ((found (lambda (text) (save-excursion (goto-char (point-min)) (search-forward text nil t)))))
              (goto-char (point-max))
              (insert (expand-file-name "llmster" llmster-comint-test--bin-dir) " --demo")
              (eshell-send-input)
              (llmster-comint-test--wait (lambda () (funcall found "› ")))
              (goto-char (point-max))
              (insert "echo:Hello **bold** from eshell")
              (eshell-send-input)
              (llmster-comint-test--wait (lambda () (funcall found "tok/s")))
              (should (llmster-comint-test--bold-p (+ (funcall found "Hello bold from eshell") (- (length "bold from eshell")))))
              (goto-char (point-max))
              (insert "/ps")
              (eshell-send-input)
              (llmster-comint-test--wait (lambda () (funcall found "INSTANCE")))
              (should-not (string-match-p "\e" (buffer-substring-no-properties (point-min) (point-max))))
              (eshell-send-eof-to-process)
              (llmster-comint-test--wait (lambda () (null eshell-process-list)))))
        (let ((kill-buffer-query-functions nil))
          (kill-buffer buffer))))))

(ert-deftest llmster-comint-test-m-x-term-is-a-full-terminal ()
  "In term.el (M-x term: TERM=eterm-color, INSIDE_EMACS=VERSION,term:…) the REPL redraws like a terminal."
  (llmster-comint-test--with-home
    (let* ((coding-system-for-read 'utf-8-unix)
           (buffer (make-term "llmster-term" (expand-file-name "llmster" llmster-comint-test--bin-dir) nil "--demo")))
      (unwind-protect
          (with-current-buffer buffer
            (set-process-query-on-exit-flag (get-buffer-process buffer) nil)
            (llmster-comint-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "› " nil t)))
                                       (get-buffer-process buffer))
            (term-send-raw-string "echo:Hello **bold** from term\r")
            (llmster-comint-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "Hello bold from term" nil t)))
                                       (get-buffer-process buffer))
            (llmster-comint-test--wait (lambda () (save-excursion (goto-char (point-min))
                                                                  (and (search-forward "tok/s" nil t) (search-forward "› " nil t))))
                                       (get-buffer-process buffer))
            ;; readline echoed the typed line: a terminal, not line mode (whose input the front end shows itself).
            (should (save-excursion (goto-char (point-min)) (search-forward "› echo:Hello **bold** from term" nil t)))
            (let ((reply (save-excursion (goto-char (point-min)) (search-forward "\nHello bold from term") (match-beginning 0))))
              (should (llmster-comint-test--bold-p (+ reply (length "\nHello "))))
              (should-not (string-match-p "\e" (buffer-substring-no-properties (point-min) (point-max)))))
            (term-send-raw-string "\C-d")
            (llmster-comint-test--wait (lambda () (not (process-live-p (get-buffer-process buffer)))) (get-buffer-process buffer)))
        (when (process-live-p (get-buffer-process buffer))
          (message "The term buffer when the REPL did not end:\n%s" (with-current-buffer buffer (buffer-string))))
        (when (get-buffer-process buffer) (delete-process (get-buffer-process buffer)))
        (kill-buffer buffer)))))

(ert-deftest llmster-comint-test-vterm-is-a-full-terminal ()
  "In vterm (INSIDE_EMACS=vterm, libvterm) the REPL runs as on a terminal and bold text is bold."
  (dolist (dir (append (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa-src/vterm-*")
                       (file-expand-wildcards "/usr/lib/*/emacs-libvterm")))
    (add-to-list 'load-path dir))
  (skip-unless (ignore-errors (require 'vterm)))
  (llmster-comint-test--with-home
    (let* ((vterm-shell (concat (shell-quote-argument (expand-file-name "llmster" llmster-comint-test--bin-dir)) " --demo"))
           (vterm-kill-buffer-on-exit nil)
           (buffer (vterm "*llmster-vterm*"))
           (found (lambda (text) (with-current-buffer buffer (save-excursion (goto-char (point-min)) (search-forward text nil t))))))
      (unwind-protect
          (with-current-buffer buffer
            (set-process-query-on-exit-flag (get-buffer-process buffer) nil)
            (llmster-comint-test--wait (lambda () (funcall found "› ")) (get-buffer-process buffer))
            (vterm-send-string "echo:Hello **bold** from vterm")
            (vterm-send-return)
            (llmster-comint-test--wait (lambda () (funcall found "tok/s")) (get-buffer-process buffer))
            ;; readline echoed the typed line: a terminal, not line mode (whose input the front end shows itself).
            (should (funcall found "› echo:Hello **bold** from vterm"))
            (should (llmster-comint-test--bold-p (- (funcall found "Hello bold from vterm") (length "bold from vterm"))))
            (should-not (string-match-p "\e" (buffer-substring-no-properties (point-min) (point-max)))))
        (when (get-buffer-process buffer) (delete-process (get-buffer-process buffer)))
        (kill-buffer buffer)))))

(provide 'llmster-comint-test)
;;; llmster-comint-test.el ends here
