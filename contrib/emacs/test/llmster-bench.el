;;; llmster-bench.el --- What the Emacs benches share: the simulator and a home of their own  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded by llmster-stream-bench.el and llmster-typing-bench.el (see each for how to run it).

;;; Code:

(require 'llmster)

(defun llmster-bench-with-simulator (body)
  "Call BODY with the directory of the built binaries and a temporary home.
`lmstudio-sim' runs meanwhile, with no token delay; `llmster-program' and the
environment (XDG directories, HOME, LLMSTER_SERVER) point llmster at it.  The
simulator and the home go afterwards."
  (let* ((bin (or (getenv "LLMSTER_BIN_DIR") (error "Set LLMSTER_BIN_DIR (swift build --show-bin-path)")))
         (home (make-temp-file "llmster-bench-" t))
         (output "")
         (simulator (make-process :name "lmstudio-sim" :connection-type 'pipe :noquery t
                                  :command (list (expand-file-name "lmstudio-sim" bin) "--token-delay" "0" "--exit-on-eof")
                                  :filter (lambda (_process text) (setq output (concat output text))))))
    (unwind-protect
        (let ((deadline (+ (float-time) 30)))
          (while (and (not (string-match "\\`\\(http://[^\n]+\\)\n" output)) (< (float-time) deadline))
            (accept-process-output simulator 0.05))
          (let ((process-environment (append (list (concat "XDG_DATA_HOME=" home "/data") (concat "XDG_CONFIG_HOME=" home "/config")
                                                   (concat "XDG_STATE_HOME=" home "/state") (concat "HOME=" home)
                                                   (concat "LLMSTER_SERVER=" (match-string 1 output)))
                                             process-environment))
                (llmster-program (expand-file-name "llmster" bin)))
            (funcall body bin home)))
      (delete-process simulator)
      (delete-directory home t))))

(provide 'llmster-bench)

;;; llmster-bench.el ends here
