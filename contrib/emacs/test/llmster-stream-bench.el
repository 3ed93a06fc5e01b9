;;; llmster-stream-bench.el --- How long a long reply takes to stream into a chat  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run from the repository root (add markdown-mode to see its cost too):
;;   LLMSTER_BIN_DIR=$(swift build --show-bin-path) emacs --batch -Q \
;;     [-L /usr/share/emacs/site-lisp/elpa/markdown-mode-VERSION -l markdown-mode] \
;;     -L contrib/emacs -l llmster -l contrib/emacs/test/llmster-stream-bench.el
;; Streams a reply of about LLMSTER_BENCH_BYTES (default 500000) from `lmstudio-sim' into a chat
;; shown in a window that follows it, three times, and prints the seconds from the send to the
;; end of the reply, and the same for `llmster ask' writing it to a file (what the server and
;; llmster take, with no editor).  After each batch of events the window's last screen is
;; fontified, as redisplay does (LLMSTER_BENCH_NO_REDISPLAY=1: not).  LLMSTER_BENCH_PROFILE=1 prints
;; the CPU profile of the three.  It prints figures and asserts nothing.

;;; Code:

(load (expand-file-name "llmster-bench" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun llmster-stream-bench--redisplay (buffer)
  "Do what redisplay does for a window on the end of BUFFER."
  (with-current-buffer buffer
    (let ((end (point-max)))
      (syntax-propertize end)
      (font-lock-fontify-region (max (point-min) (- end 4000)) end))))

(defun llmster-stream-bench ()
  "Stream long replies and print how long each took."
  (llmster-bench-with-simulator
   (lambda (_bin home)
     (let ((bytes (string-to-number (or (getenv "LLMSTER_BENCH_BYTES") "500000")))
           (deadline nil)
           (times nil) (events 0))
       (let ((start (float-time)))
         (call-process llmster-program nil (list (expand-file-name "out" home) nil) nil
                       "ask" (format "[[sim:large=%d]] go" bytes))
         (message "llmster stream bench: llmster ask, %d KB to a file: %.2f s" (/ bytes 1000) (- (float-time) start)))
       (when (getenv "LLMSTER_BENCH_PROFILE") (require 'profiler) (profiler-start 'cpu))
       (dotimes (_ 3)
         (let ((buffer (llmster)))
           (switch-to-buffer buffer)
           (add-hook 'llmster-reply-finished-hook #'ignore)
           (cl-letf* ((apply-event (symbol-function 'llmster--apply-event))
                      ((symbol-function 'llmster--apply-event)
                       (lambda (buffer reply event)
                         (setq events (1+ events))
                         (funcall apply-event buffer reply event))))
             (let ((start (float-time)))
               (with-current-buffer buffer
                 (goto-char (point-max))
                 (insert (format "[[sim:large=%d]] go" bytes))
                 (llmster-send))
               (setq deadline (+ (float-time) 300))
               (while (and (llmster-streaming-p buffer) (< (float-time) deadline))
                 (accept-process-output nil 0.02)
                 (unless (getenv "LLMSTER_BENCH_NO_REDISPLAY") (llmster-stream-bench--redisplay buffer)))
               (push (- (float-time) start) times)))
           (kill-buffer buffer)))
       (when (getenv "LLMSTER_BENCH_PROFILE")
         (profiler-report)
         (with-current-buffer (car (cl-remove-if-not (lambda (b) (string-match-p "Profiler-Report" (buffer-name b))) (buffer-list)))
           (goto-char (point-min)) (while (not (eobp)) (ignore-errors (profiler-report-expand-entry t)) (forward-line 1))
           (message "%s" (buffer-string)))
         (profiler-stop))
       (setq times (sort times #'<))
       (message "llmster stream bench: %s, %d KB reply into a chat (%d events each): %.2f s (median of 3), %.2f s worst"
                (if (featurep 'markdown-mode) "markdown-mode" "text-mode") (/ bytes 1000) (/ events 3)
                (nth 1 times) (car (last times)))
       (delete-process llmster--process)))))

(llmster-stream-bench)

;;; llmster-stream-bench.el ends here
