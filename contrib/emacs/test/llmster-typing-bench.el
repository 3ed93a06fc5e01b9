;;; llmster-typing-bench.el --- How long a key takes in a chat after a long reply  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run from the repository root, with markdown-mode (its syntax scan is what costs):
;;   LLMSTER_BIN_DIR=$(swift build --show-bin-path) emacs --batch -Q \
;;     -L /usr/share/emacs/site-lisp/elpa/markdown-mode-VERSION -l markdown-mode \
;;     -l contrib/emacs/llmster.el -l contrib/emacs/test/llmster-typing-bench.el
;; Streams a reply of about LLMSTER_BENCH_BYTES (default 500000) from `lmstudio-sim', then types 30
;; characters in the input area, each followed by what redisplay would make Emacs do for it
;; (`syntax-propertize' and fontifying the line), and prints the median and worst milliseconds per
;; key; then how long reopening the conversation from the library takes (five times: the request, the
;; transcript drawn and the window's fontification), and typing in the reopened chat.  It prints figures and asserts
;; nothing: the goal (under 50 ms a key) is for people to compare.

;;; Code:

(load (expand-file-name "llmster-bench" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun llmster-typing-bench--keys (buffer)
  "Type 30 characters at the end of BUFFER; return (MEDIAN WORST) milliseconds."
  (with-current-buffer buffer
    (font-lock-ensure)
    (let ((times nil))
      (dotimes (_ 30)
        (goto-char (point-max))
        (let ((start (float-time)))
          (insert "x")
          (syntax-propertize (point-max))
          (font-lock-fontify-region (line-beginning-position) (point-max))
          (push (* 1000 (- (float-time) start)) times)))
      (delete-region (- (point-max) 30) (point-max))
      (setq times (sort times #'<))
      (list (nth 15 times) (car (last times))))))

(defun llmster-typing-bench ()
  "Measure typing after a long streamed reply, and in the reopened conversation."
  (llmster-bench-with-simulator
   (lambda (_bin _home)
     (let ((bytes (string-to-number (or (getenv "LLMSTER_BENCH_BYTES") "500000")))
           (deadline nil)
           (buffer nil))
       (setq buffer (llmster))
       (with-current-buffer buffer
         (goto-char (point-max))
         (insert (format "[[sim:large=%d]] go" bytes))
         (llmster-send))
       (setq deadline (+ (float-time) 300))
       (while (and (llmster-streaming-p buffer) (< (float-time) deadline)) (accept-process-output nil 0.05))
       ;; The reply's syntax scan runs in idle slices once it ended (a second or so), as after reopening.
       (let ((start (float-time)))
         (while (and (boundp 'llmster--syntax-scanned) (buffer-local-value 'llmster--syntax-scanned buffer))
           (accept-process-output nil 0.01))
         (message "llmster typing bench: the streamed reply's syntax scan in the background: %.0f ms"
                  (* 1000 (- (float-time) start))))
       (switch-to-buffer buffer)
       (pcase-let ((`(,median ,worst) (llmster-typing-bench--keys buffer)))
         (message "llmster typing bench: %s, %d KB streamed reply: %.1f ms a key (median), %.1f ms worst"
                  (if (derived-mode-p 'markdown-mode) "markdown-mode" "text-mode") (/ (buffer-size buffer) 1000) median worst))
       (let ((id (buffer-local-value 'llmster--conversation-id buffer))
             (times nil))
         ;; Reopening: the request, the transcript drawn, and the first redisplay's fontification of the window.
         (dotimes (_ 5)
           (kill-buffer buffer)
           (garbage-collect)
           (let ((start (float-time)))
             (setq buffer (llmster id))
             (switch-to-buffer buffer)
             (with-current-buffer buffer
               (syntax-propertize (point-max))
               (font-lock-fontify-region (max (point-min) (- (point-max) 3000)) (point-max)))
             (push (* 1000 (- (float-time) start)) times)))
         (setq times (sort times #'<))
         (message "llmster typing bench: reopening the %d KB conversation: %.0f ms (median of 5), %.0f ms worst"
                  (/ (buffer-size buffer) 1000) (nth 2 times) (car (last times)))
         ;; The transcript's syntax scan, in idle slices after the chat is shown.
         (let ((start (float-time)) (slices 0) (longest 0.0))
           (advice-add 'llmster--propertize-slice :around
                       (lambda (slice &rest args)
                         (let ((begun (float-time)))
                           (apply slice args)
                           (setq slices (1+ slices) longest (max longest (- (float-time) begun)))))
                       '((name . llmster-typing-bench)))
           (while (and (boundp 'llmster--syntax-scanned) (buffer-local-value 'llmster--syntax-scanned buffer))
             (accept-process-output nil 0.01))
           (advice-remove 'llmster--propertize-slice 'llmster-typing-bench)
           (message "llmster typing bench: its syntax scan in the background: %.0f ms in %d slices, the longest %.0f ms"
                    (* 1000 (- (float-time) start)) slices (* 1000 longest))))
       (switch-to-buffer buffer)
       (pcase-let ((`(,median ,worst) (llmster-typing-bench--keys buffer)))
         (message "llmster typing bench: the same conversation reopened: %.1f ms a key (median), %.1f ms worst" median worst))
       (delete-process llmster--process)))))

(llmster-typing-bench)

;;; llmster-typing-bench.el ends here
