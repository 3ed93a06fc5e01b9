;;; llmster-test.el --- ERT tests of llmster.el against llmster rpc and the simulator  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run with
;;   LLMSTER_BIN_DIR=$(swift build --show-bin-path) emacs --batch -Q -l contrib/emacs/llmster.el \
;;     -l contrib/emacs/test/llmster-test.el -f ert-run-tests-batch-and-exit
;; Starts `lmstudio-sim --token-delay 0' and points llmster at a temporary XDG home.

;;; Code:

(require 'ert)
(require 'llmster)

(defvar llmster-test--bin-dir
  (let ((dir (getenv "LLMSTER_BIN_DIR")))
    (unless (and dir (file-executable-p (expand-file-name "llmster" dir)))
      (error "Set LLMSTER_BIN_DIR to the directory of the built llmster and lmstudio-sim (swift build --show-bin-path)"))
    dir))

(defvar llmster-test--simulator nil)
(defvar llmster-test--server nil)

(defun llmster-test--start-simulator ()
  "Start the simulator once; return its URL."
  (unless (and llmster-test--simulator (process-live-p llmster-test--simulator))
    (let ((output ""))
      (setq llmster-test--simulator
            (make-process :name "lmstudio-sim" :connection-type 'pipe :noquery t
                          :command (list (expand-file-name "lmstudio-sim" llmster-test--bin-dir)
                                         "--token-delay" "0" "--exit-on-eof")
                          :filter (lambda (_p text) (setq output (concat output text)))))
      (let ((deadline (+ (float-time) 30)))
        (while (and (not (string-match "\\`\\(http://[^\n]+\\)\n" output)) (< (float-time) deadline))
          (accept-process-output llmster-test--simulator 0.05)))
      (setq llmster-test--server (or (match-string 1 output) (error "The simulator did not start: %s" output)))))
  llmster-test--server)

(defmacro llmster-test--with-llmster (&rest body)
  "Run BODY with a fresh `llmster rpc' in a sandboxed XDG home."
  (declare (indent 0))
  `(let* ((home (make-temp-file "llmster-emacs-" t))
          (process-environment (append (list (concat "XDG_DATA_HOME=" home "/data")
                                             (concat "XDG_CONFIG_HOME=" home "/config")
                                             (concat "XDG_STATE_HOME=" home "/state")
                                             (concat "HOME=" home)
                                             (concat "LLMSTER_SERVER=" (llmster-test--start-simulator)))
                                       process-environment))
          (llmster-program (expand-file-name "llmster" llmster-test--bin-dir)))
     (unwind-protect
         (progn ,@body)
       (when (llmster--live-p) (delete-process llmster--process))
       (setq llmster--process nil)
       (delete-directory home t))))

(defun llmster-test--wait (predicate)
  "Process output until PREDICATE holds; fail after 30 seconds."
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (should (funcall predicate))))

(defun llmster-test--send (buffer text)
  "Type TEXT in chat BUFFER and send it."
  (with-current-buffer buffer
    (goto-char (point-max))
    (insert text)
    (llmster-send)))

(ert-deftest llmster-test-send-streams-the-reply-as-one-undo-step ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "[[sim:reasoning]] echo:Hello from *Emacs*")
        (goto-char (point-min))
        (should (llmster-streaming-p))
        (llmster-test--wait (lambda () (not (llmster-streaming-p buffer))))
        (should (string-match-p "### Assistant\n\\(.\\|\n\\)*Hello from \\*Emacs\\*" (buffer-string)))
        (should (= (point) (point-min)))
        (should llmster--conversation-id)
        ;; Reasoning is there, dim and folded.
        (let ((position (text-property-any (point-min) (point-max) 'llmster-reasoning t)))
          (should position)
          (should (eq (get-text-property position 'invisible) 'llmster-reasoning))
          (should (invisible-p position)))
        ;; One undo removes the whole reply.
        (let ((last-command nil))
          (undo))
        (should-not (string-match-p "### Assistant" (buffer-string)))))))

(ert-deftest llmster-test-a-rewritten-answer-replaces-the-streamed-text ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (llmster-test--send buffer "[[sim:rewrite]] echo:first draft")
        (llmster-test--wait (lambda () (not (llmster-streaming-p buffer))))
        (should (string-match-p "### Assistant\n+Revised: first draft\n" (buffer-string)))
        (should-not (string-match-p "first draftRevised" (buffer-string)))))))

(ert-deftest llmster-test-cancel-keeps-the-partial-reply ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:stall=30]] echo:one two three four five six seven")
      (with-current-buffer buffer
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-max)) (search-backward "\none" nil t))))
        (llmster-cancel)
        (llmster-test--wait (lambda () (not (llmster-streaming-p buffer))))
        (should (string-match-p "\\[incomplete, cancelled\\]" (buffer-string)))
        (let* ((answer (llmster--request-sync "conversations/get" `((id . ,llmster--conversation-id))))
               (reply (car (last (alist-get 'messages answer)))))
          (should (equal (alist-get 'status reply) "incomplete"))
          (should (string-prefix-p "one" (alist-get 'text reply))))))))

(ert-deftest llmster-test-a-killed-buffer-does-not-break-the-session ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:stall=30]] echo:one two three four five six seven")
      (with-current-buffer buffer
        (llmster-test--wait (lambda () llmster--conversation-id)))
      (kill-buffer buffer)
      (let ((other (llmster)))
        (llmster-test--send other "echo:still here")
        (llmster-test--wait (lambda () (not (llmster-streaming-p other))))
        (should (string-match-p "still here\n" (with-current-buffer other (buffer-string))))))))

(ert-deftest llmster-test-model-list-is-annotated ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (let* ((models (llmster-models))
           (tiny (cl-find "acme/tiny-1b" models :key (lambda (m) (alist-get 'key m)) :test #'equal)))
      (should tiny)
      (should (string-match-p "loaded" (llmster--model-annotation tiny)))
      (should (string-match-p "MB\\|GB" (llmster--model-annotation tiny))))
    (with-current-buffer (llmster)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt table &rest _)
                   (should (functionp (alist-get 'annotation-function (cdr (funcall table "" nil 'metadata)))))
                   "acme/tiny-1b")))
        (should (equal (llmster-select-model) "acme/tiny-1b"))
        (should (equal llmster--model "acme/tiny-1b"))))))

(ert-deftest llmster-test-conversation-list-open-rename-pin-move-delete ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:first chat")
      (llmster-test--wait (lambda () (not (llmster-streaming-p buffer)))))
    (with-current-buffer (llmster-list-conversations)
      (goto-char (point-min))
      (should (search-forward "echo:first chat" nil t))
      (beginning-of-line)
      (llmster-chats-rename "Renamed chat")
      (goto-char (point-min))
      (should (search-forward "Renamed chat" nil t))
      (beginning-of-line)
      (llmster-chats-toggle-pin)
      (goto-char (point-min))
      (search-forward "Renamed chat")
      (should (equal (aref (tabulated-list-get-entry) 0) "*"))
      (llmster-chats-move "Work")
      (goto-char (point-min))
      (search-forward "Renamed chat")
      (should (equal (aref (tabulated-list-get-entry) 1) "Work"))
      (let ((chat (llmster-chats-open)))
        (should (string-match-p "first chat" (with-current-buffer chat (buffer-string)))))
      (with-current-buffer "*llmster chats*"
        (goto-char (point-min))
        (search-forward "Renamed chat")
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (_) t)))
          (llmster-chats-delete))
        (goto-char (point-min))
        (should-not (search-forward "Renamed chat" nil t))))))

(ert-deftest llmster-test-send-region ()
  (llmster-test--with-llmster
    (with-temp-buffer
      (insert "echo:from a region")
      (let ((chat (llmster-send-region (point-min) (point-max))))
        (llmster-test--wait (lambda () (not (llmster-streaming-p chat))))
        (should (string-match-p "### Assistant\n\n?from a region" (with-current-buffer chat (buffer-string))))))))

(ert-deftest llmster-test-json-fallback-parses-like-the-native-parser ()
  (let ((text "{\"a\":[1,{\"b\":null}],\"c\":\"é\",\"d\":false}"))
    (should (equal (llmster--json-parse text)
                   (cl-letf (((symbol-function 'fboundp) (lambda (f) (not (eq f 'json-parse-string)))))
                     (llmster--json-parse text))))))

;; `--framing=lsp' exists so that Emacs' own jsonrpc.el can drive llmster.
(ert-deftest llmster-test-lsp-framing-works-with-jsonrpc-el ()
  (require 'jsonrpc)
  (llmster-test--with-llmster
    (let ((connection (make-instance
                       'jsonrpc-process-connection :name "llmster-lsp"
                       :process (make-process :name "llmster-lsp" :connection-type 'pipe :noquery t
                                              :coding 'utf-8-emacs-unix
                                              :command (list llmster-program "rpc" "--framing=lsp")))))
      (unwind-protect
          (progn
            (should (equal (plist-get (jsonrpc-request connection :initialize '(:protocolVersion 1)) :protocolVersion) 1))
            (let ((models (plist-get (jsonrpc-request connection :models/list nil) :models)))
              (should (cl-some (lambda (m) (equal (plist-get m :key) "acme/tiny-1b")) models))))
        (jsonrpc-shutdown connection t)))))

;;; llmster-test.el ends here
