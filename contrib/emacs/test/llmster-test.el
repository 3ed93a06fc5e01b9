;;; llmster-test.el --- ERT tests of llmster.el against llmster rpc and the simulator  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run with
;;   LLMSTER_BIN_DIR=$(swift build --show-bin-path) emacs --batch -Q -L contrib/emacs -l llmster \
;;     -l contrib/emacs/test/llmster-test.el -f ert-run-tests-batch-and-exit
;; Starts `lmstudio-sim --token-delay 0' and points llmster at a temporary XDG home.
;; `make editor-tests' runs the suite twice: without and with markdown-mode loaded first.

;;; Code:

(require 'ert)
(require 'llmster)
(require 'llmster-context)
(require 'llmster-rewrite)
(require 'llmster-library)
(require 'llmster-transient)
(require 'url)
(require 'jsonrpc)
(require 'checkdoc)
(require 'package)

(defvar llmster-test--bin-dir
  (let ((dir (getenv "LLMSTER_BIN_DIR")))
    (unless (and dir (file-executable-p (expand-file-name "llmster" dir)))
      (error "Set LLMSTER_BIN_DIR to the directory of the built llmster and lmstudio-sim (swift build --show-bin-path)"))
    dir))

(defvar llmster-test--directory (file-name-directory (or load-file-name buffer-file-name))
  "The directory of this test file; the shared scenarios are in the source tree beside it, not in the package.")

(defvar llmster-test--source (replace-regexp-in-string "\\.elc\\'" ".el" (symbol-file 'llmster-send 'defun))
  "The llmster.el under test.")

(defvar llmster-test--sources
  (cons llmster-test--source
        (cl-remove llmster-test--source (directory-files (file-name-directory llmster-test--source) t "\\`llmster-.*\\.el\\'")
                   :test #'equal))
  "The package's files under test: llmster.el, then the others beside it.")

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
         (progn
           ;; Every test starts with the server as it starts: no contexts, only acme/tiny-1b loaded.
           (llmster-test--reset-server)
           ,@body)
       (when (llmster--live-p) (delete-process llmster--process))
       (setq llmster--process nil)
       (delete-directory home t))))

(defun llmster-test--wait (predicate)
  "Process output until PREDICATE holds; fail after 30 seconds."
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (should (funcall predicate))))

(defun llmster-test--wait-reply (buffer)
  "Wait until the reply streaming into BUFFER has ended."
  (llmster-test--wait (lambda () (not (llmster-streaming-p buffer)))))

(defun llmster-test--call (method &rest params)
  "The result of METHOD with PARAMS (an alist given as key value pairs)."
  (llmster--request-sync method (cl-loop for (key value) on params by #'cddr collect (cons key value))))

(defun llmster-test--reset-server ()
  "Make the simulator forget every server context, as a restarted LM Studio does."
  (let ((url-request-method "POST"))
    (kill-buffer (url-retrieve-synchronously (concat (llmster-test--start-simulator) "/__sim/reset") t))))

(defun llmster-test--reopen (buffer)
  "Kill chat BUFFER and open its conversation again, from the library."
  (let ((id (buffer-local-value 'llmster--conversation-id buffer)))
    (kill-buffer buffer)
    (llmster id)))

(defun llmster-test--send-undoably (text seen)
  "Type TEXT at the end of this chat as an undo step of its own and send it.
Waits until the reply shows SEEN."
  (goto-char (point-max))
  (undo-boundary)
  (insert text)
  (undo-boundary)
  (llmster-send)
  (llmster-test--wait (lambda () (save-excursion (goto-char (point-min))
                                                 (search-forward (concat "### Assistant\n" seen) nil t)))))

(defun llmster-test--send (buffer text)
  "Type TEXT in chat BUFFER and send it."
  (with-current-buffer buffer
    (goto-char (point-max))
    (insert text)
    (llmster-send)))

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
        (should (string-match-p "\\[incomplete: [^]\n]+\\]\n\n\\'" (buffer-substring-no-properties (point-min) (llmster--last-heading))))
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

;;;; Reasoning, undo, progress, tools, fresh context, failed first send

(ert-deftest llmster-test-chat-buffers-use-markdown-mode-when-installed ()
  (llmster-test--with-llmster
    (with-current-buffer (llmster)
      (should (eq (and (derived-mode-p 'markdown-mode) t) (featurep 'markdown-mode))))))

(ert-deftest llmster-test-reasoning-is-folded-and-survives-font-lock ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) saved label engine-label)
      (with-current-buffer buffer
        (cl-letf* ((apply-event (symbol-function 'llmster--apply-event))
                   ((symbol-function 'llmster--apply-event)
                    (lambda (buffer reply event)
                      (when (equal (alist-get 'type event) "reasoning.end") (setq engine-label (alist-get 'reasoningLabel event)))
                      (funcall apply-event buffer reply event))))
          (llmster-test--send buffer "[[sim:reasoning]] echo:The answer")
          (llmster-test--wait-reply buffer))
        (let ((reply (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))))
          (setq saved (alist-get 'reasoning reply)
                label (alist-get 'reasoningLabel (cl-find "reasoning" (alist-get 'parts reply)
                                                          :key (lambda (part) (alist-get 'kind part)) :test #'equal)))))
      (should (> (length saved) 20))
      (should (stringp label))
      (dolist (chat '(streamed reopened))
        (with-current-buffer (if (eq chat 'streamed) buffer (llmster-test--reopen buffer))
          (font-lock-ensure)
          (let ((fold (car (llmster--folds 'reasoning))))
            (should fold)
            ;; Folded to one summary line, the whole reasoning behind it, the answer outside it.
            (should (string-match-p "\\`▸ Thought for [0-9]+\\.[0-9] s\n\\'" (get-char-property (overlay-start fold) 'display)))
            ;; rpc's label, the saved part's, streamed or reopened (reasoning.end's comes first, then the saved one).
            (should (stringp engine-label))
            (should (equal (overlay-get fold 'llmster-summary) label))
            (should (equal (string-trim (buffer-substring-no-properties (overlay-start fold) (overlay-end fold))) saved))
            (should (string-prefix-p "The answer" (buffer-substring-no-properties (overlay-end fold) (point-max))))
            (should (eq (get-char-property (1+ (overlay-start fold)) 'face) 'llmster-reasoning-face))
            ;; C-c C-r away from the fold shows all reasoning; on the fold, it folds that one again.
            (goto-char (point-max))
            (llmster-toggle-reasoning)
            (font-lock-ensure)
            (should-not (get-char-property (overlay-start fold) 'display))
            (should (string-match-p "▾ Thought for" (overlay-get fold 'before-string)))
            (goto-char (1+ (overlay-start fold)))
            (llmster-toggle-reasoning)
            (font-lock-ensure)
            (should (get-char-property (overlay-start fold) 'display))))))))

(ert-deftest llmster-test-undo-works-after-typing-while-a-reply-streams ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "[[sim:stall=1]] echo:one two three four five six seven eight")
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t))))
        (should (llmster-streaming-p))
        ;; The user types the next prompt while the reply streams above it.
        (goto-char (point-max))
        (undo-boundary)
        (insert "next question")
        (undo-boundary)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### Assistant\none two three four five six seven eight\n\n### You\nnext question\\'" (buffer-string)))
        (let ((last-command nil)) (undo))
        (should (string-match-p "### Assistant\none two three four five six seven eight\n\n### You\n\\'" (buffer-string)))
        (let ((last-command 'undo)) (undo))
        (should-not (string-match-p "### Assistant" (buffer-string)))))))

(ert-deftest llmster-test-undo-after-replies-leaves-a-chat-as-before-each-send ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send-undoably "[[sim:reasoning]] echo:first" "")
        (llmster-test--wait-reply buffer)
        (llmster-test--send-undoably "echo:second" "second")
        (llmster-test--wait-reply buffer)
        (let ((first (save-excursion (goto-char (point-max)) (search-backward "### You\necho:second")
                                     (buffer-substring-no-properties (point-min) (point)))))
          ;; Each undo leaves the chat as it was before a send, then before its typing.
          (let ((last-command nil)) (undo))
          (should (equal (buffer-string) (concat first "### You\necho:second")))
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:second"))
          (let ((last-command 'undo)) (undo))
          (should (equal (buffer-string) (concat first "### You\n")))
          (should (= (point) (point-max) llmster--input-start)))
        (let ((last-command 'undo)) (undo))
        (should (equal (buffer-string) "### You\n[[sim:reasoning]] echo:first"))
        ;; The reply's reasoning fold went with it, and no reply is shown to answer again.
        (should-not (llmster--folds))
        (should-error (llmster-regenerate) :type 'user-error)
        (let ((last-command 'undo)) (undo))
        (should (equal (buffer-string) "### You\n"))
        ;; The heading stays.
        (let ((last-command 'undo)) (ignore-errors (undo)))
        (should (equal (buffer-string) "### You\n"))
        ;; The library keeps the exchanges; the chat goes on from the library's last one.
        (insert "echo:again")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "\\`### You\necho:again\n\n### Assistant\nagain\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-undo-while-a-reply-streams-takes-the-message-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send-undoably "[[sim:stall=30]] echo:alpha beta gamma delta" "alpha")
        (let ((last-command nil)) (undo))
        ;; As before the send: the text in the input, nothing streaming; the library keeps the exchange.
        (should-not (llmster-streaming-p))
        (should (equal (buffer-string) "### You\n[[sim:stall=30]] echo:alpha beta gamma delta"))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "[[sim:stall=30]] echo:alpha beta gamma delta"))
        (let ((last-command 'undo)) (undo))
        (should (equal (buffer-string) "### You\n"))
        (insert "echo:again")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### You\necho:again\n\n### Assistant\nagain\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-undo-of-a-first-message-before-emacs-read-its-events-withdraws-it ()
  ;; Undo once the reply streams but before Emacs applied any of its events (it was busy): the send's answer names
  ;; the conversation the send made.
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (arrived nil))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (goto-char (point-max))
        (undo-boundary)
        (insert "[[sim:stall=30]] echo:alpha beta gamma delta")
        (undo-boundary)
        (cl-letf (((symbol-function 'llmster--apply-event) (lambda (&rest _) (setq arrived t))))
          (llmster-send)
          (llmster-test--wait (lambda () arrived)))
        (should-not (llmster--reply-message-id llmster--stream))
        (let ((last-command nil)) (undo))
        (should-not (llmster-streaming-p))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "[[sim:stall=30]] echo:alpha beta gamma delta"))
        ;; The library does not keep the exchange the buffer no longer shows, and the chat goes on in its conversation.
        (should llmster--conversation-id)
        (should-not (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
        (delete-region llmster--input-start (point-max))
        (insert "echo:again")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:again" "again")))))))

(ert-deftest llmster-test-undo-goes-on-after-a-refused-message-with-a-blank-line-comes-back ()
  ;; RET in the input area leaves a newline after the text; the message goes without it, and comes back with it.
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (goto-char (point-max))
        (undo-boundary)
        (insert "[[sim:status=500]] echo:x\n")
        (undo-boundary)
        (llmster-send)
        (llmster-test--wait (lambda () llmster--returned))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "[[sim:status=500]] echo:x\n"))
        ;; The send saved nothing and left the history: the first undo takes the typing back.
        (let ((last-command nil)) (undo))
        (should (equal (buffer-string) "### You\n"))))))

(ert-deftest llmster-test-the-first-undo-after-a-message-comes-back-takes-the-typing-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (buffer-enable-undo)
        ;; Refused by the server, then sent to no server at all (which holds no context: the offer of a fresh one
        ;; is declined).
        (dolist (fail '("[[sim:status=500]] echo:x" "echo:to nowhere"))
          (cl-letf (((symbol-function 'read-multiple-choice) (lambda (_prompt choices) (assq ?n choices))))
            (when (equal fail "echo:to nowhere") (llmster-switch-server "http://127.0.0.1:1"))
            (goto-char (point-max))
            (undo-boundary)
            (insert fail)
            (undo-boundary)
            (llmster-send)
            (llmster-test--wait (lambda () llmster--returned))
            (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) fail))
            (let ((last-command nil)) (undo))
            (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\n"))))))))

(ert-deftest llmster-test-undo-while-an-answer-asked-again-streams-brings-the-old-one-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "[[sim:stall=30]] echo:one two three four five")
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t))))
        (llmster-cancel)
        (llmster-test--wait-reply buffer)
        (let ((before (buffer-string))
              (shown (alist-get 'id (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))))
          (undo-boundary)
          (llmster-regenerate)
          (llmster-test--wait (lambda () (and (not (string-match-p "incomplete" (buffer-string)))
                                              (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t)))))
          ;; One undo: the answer asked again goes, the one before is back.
          (let ((last-command nil)) (undo))
          (should-not (llmster-streaming-p))
          (should (equal (buffer-string) before))
          ;; The library holds what the buffer shows: the answer before, with the one asked again taken out.
          (should (equal (alist-get 'id (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))
                         shown))
          (should (= 1 (length (alist-get 'alternatives (llmster-test--call "conversations/alternatives"
                                                                            'conversationId llmster--conversation-id))))))))))

(ert-deftest llmster-test-undo-after-asking-again-brings-the-old-answer-back-folded ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "[[sim:reasoning]] tell me")
        (llmster-test--wait-reply buffer)
        (cl-flet ((folds () (mapcar (lambda (o) (list (overlay-start o) (overlay-end o) (overlay-get o 'llmster-summary)
                                                      (overlay-get o 'llmster-folded) (overlay-get o 'display)))
                                    (llmster--folds))))
          (let ((before (buffer-string)) (shown (folds)))
            (should (car shown))
            (undo-boundary)
            (llmster-regenerate)
            (llmster-test--wait-reply buffer)
            ;; One undo, as for a new message: the chat as before asking again.
            (let ((last-command nil)) (undo))
            (should (equal (buffer-string) before))
            ;; Folded again behind its summary line, not plain text.
            (should (equal (folds) shown))
            ;; And it is the one asking again replaces.
            (llmster-regenerate)
            (llmster-test--wait-reply buffer)
            (should (equal (buffer-string) before))))))))

;; What the user sees of an edit: the header line says so, and a send replaces the last message.
(defun llmster-test--editing-p ()
  "Whether this chat shows that its next send replaces the last message."
  (and (string-match-p "Editing the last message" (format "%s" header-line-format)) t))

(defun llmster-test--undo (again)
  "Undo as the `undo' command does, after an undo boundary.
AGAIN goes on from the undo before; else what was done last is undone,
an undo included (a redo)."
  (undo-boundary)
  (let ((last-command (and again 'undo))) (undo)))

(defun llmster-test--texts ()
  "The texts of this chat's conversation as the library holds it."
  (mapcar (lambda (m) (alist-get 'text m))
          (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))

(ert-deftest llmster-test-undo-of-an-edit-brings-the-edit-back ()
  ;; Undo after an edit's reply leaves the chat as before the send: the message it replaced in view and the edited
  ;; text in the input area, still editing it, so that sending the text again makes another version of the message,
  ;; not a new message.  Undo past the edit's start leaves editing; redo goes back the same way.
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send-undoably "echo:one" "one")
        (llmster-test--wait-reply buffer)
        (undo-boundary)
        (llmster-edit-last)
        (llmster-test--send-undoably " edited" "one edited")
        (llmster-test--wait-reply buffer)
        (let ((sent (buffer-string)))
          (should (equal sent "### You\necho:one edited\n\n### Assistant\none edited\n\n### You\n"))
          (should-not (llmster-test--editing-p))
          (llmster-test--undo nil)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one edited"))
          (should (llmster-test--editing-p))
          (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\necho:one edited"))
          ;; The typing of the edit: still the edit.
          (llmster-test--undo t)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one"))
          (should (llmster-test--editing-p))
          ;; The edit's start: the input as it was, and the next send a new message.
          (llmster-test--undo t)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) ""))
          (should-not (llmster-test--editing-p))
          (should-not llmster--edit-next)
          ;; Redo, step by step, up to the edit sent.
          (llmster-test--undo nil)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one"))
          (should (llmster-test--editing-p))
          (llmster-test--undo t)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one edited"))
          (should (llmster-test--editing-p))
          (llmster-test--undo t)
          (should (equal (buffer-string) sent))
          (should-not (llmster-test--editing-p))
          ;; Undone again, and sent again: another version of the last message.
          (llmster-test--undo nil)
          (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\necho:one edited"))
          (should (llmster-test--editing-p))
          (llmster-test--send-undoably " again" "one edited again")
          (llmster-test--wait-reply buffer)
          (should (equal (llmster-test--texts) '("echo:one edited again" "one edited again")))
          (should (= 3 (length (alist-get 'alternatives (llmster--alternatives-of
                                                         (alist-get 'messages (llmster-test--call "conversations/get"
                                                                                                  'id llmster--conversation-id))
                                                         t)))))
          (should (equal (buffer-string) "### You\necho:one edited again\n\n### Assistant\none edited again\n\n### You\n")))))))

(ert-deftest llmster-test-undo-of-leaving-a-refused-edit-brings-the-edit-back ()
  ;; An edit the server refused waits in the input area, still editing; leaving it and undoing that brings the edit
  ;; back with its editing, and redo leaves it again.
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send-undoably "echo:one" "one")
        (llmster-test--wait-reply buffer)
        (undo-boundary)
        (llmster-edit-last)
        (undo-boundary)
        (delete-region llmster--input-start (point-max))
        (insert "[[sim:status=500]] echo:edited")
        (undo-boundary)
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (llmster-test--wait (lambda () (string-prefix-p "### You\necho:one\n" (buffer-string))))
        (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\n[[sim:status=500]] echo:edited"))
        (should (llmster-test--editing-p))
        (undo-boundary)
        (llmster-cancel)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) ""))
        (should-not (llmster-test--editing-p))
        (llmster-test--undo nil)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "[[sim:status=500]] echo:edited"))
        (should (llmster-test--editing-p))
        (llmster-test--undo nil)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) ""))
        (should-not (llmster-test--editing-p))
        (should-not llmster--edit-next)
        (llmster-test--undo nil)
        (should (llmster-test--editing-p))
        ;; Sent without the failure, it replaces the last message.
        (delete-region llmster--input-start (point-max))
        (insert "echo:edited")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (equal (llmster-test--texts) '("echo:edited" "edited")))
        (should (string-prefix-p "### You\necho:edited\n\n### Assistant\nedited\n\n### You\n" (buffer-string)))))))

(ert-deftest llmster-test-undo-works-after-typing-while-a-reply-is-rewritten ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "[[sim:rewrite stall=1]] echo:one two three four five six seven eight nine ten")
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t))))
        (goto-char (point-max))
        (undo-boundary)
        (insert "next question")
        (undo-boundary)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### Assistant\nRevised: one two three four five six seven eight nine ten\n\n### You\nnext question\\'" (buffer-string)))
        (let ((last-command nil)) (undo))
        (should (string-match-p "### Assistant\nRevised: one two three four five six seven eight nine ten\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-model-load-progress-and-usage-are-shown ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (seen nil))
      (let ((record (lambda (_reply text) (push text seen))))
        (advice-add 'llmster--set-indicator :after record)
        (unwind-protect
            (with-current-buffer buffer
              (setq llmster--model "acme/thinker-8b")
              (llmster-test--send buffer "[[sim:slow-load]] echo:loaded at last")
              (should (string-match-p "waiting for the server" (overlay-get (llmster--reply-indicator llmster--stream) 'after-string)))
              (llmster-test--wait-reply buffer))
          (advice-remove 'llmster--set-indicator record)))
      (should (cl-some (lambda (text) (string-match-p "\\`loading the model [0-9]+% · [0-9]+ s\\'" text)) seen))
      (should (member "answering" seen))
      (with-current-buffer buffer
        ;; The indicator goes when the reply ends.
        (should-not (cl-some (lambda (o) (overlay-get o 'after-string)) (overlays-in (point-min) (point-max))))
        (should-not llmster--progress)
        (should (memq 'llmster--usage mode-line-process))
        ;; rpc's context meter, as the REPL's prompt shows it.
        (llmster-test--wait (lambda () (string-match-p "\\` \\[acme/thinker-8b ctx [0-9.k]+/[0-9.k]+ [0-9]+%\\]\\'" (or llmster--usage ""))))))))

(ert-deftest llmster-test-prompt-progress-ticks-in-the-mode-and-header-lines ()
  "A long prompt shows its progress and the time since the send, which moves on
without events; a cancel during it says the server finishes the prompt first."
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (shown nil))
      (with-current-buffer buffer
        (llmster-test--send buffer "[[sim:prefill=90]] echo:a long prompt")
        ;; The first progress event after 0% comes 30 s in: a second is counted by the timer.
        (llmster-test--wait (lambda () (string-match-p "\\`processing prompt 0% · [1-9][0-9]* s\\'" (or llmster--progress ""))))
        ;; `format-mode-line' gives "" in batch Emacs: the mode line shows the variable, and the header line is a string.
        (should (member '(llmster--progress (" ⋯ " llmster--progress)) mode-line-process))
        (should (string-match-p "Processing prompt 0% · [1-9]" header-line-format))
        (should (string-match-p "processing prompt 0% · [1-9]"
                                (overlay-get (llmster--reply-indicator llmster--stream) 'after-string)))
        (cl-letf* ((original (symbol-function 'message))
                   ((symbol-function 'message)
                    (lambda (format &rest args)
                      (when format (push (apply #'format format args) shown))
                      (apply original format args))))
          (llmster-cancel)
          (llmster-test--wait-reply buffer))
        (should-not llmster--progress)
        (should-not header-line-format)
        (should (cl-some (lambda (text) (string-match-p "LM Studio finishes processing it" text)) shown))))))

(ert-deftest llmster-test-a-message-that-would-fill-the-context-offers-a-larger-one ()
  "rpc's overflow decision is offered with its choices; growing sends the message again after the reload."
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (asked nil))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (cl-letf (((symbol-function 'read-multiple-choice)
                 (lambda (prompt choices &rest _) (setq asked (cons prompt choices)) (assq ?g choices))))
        (llmster-test--send buffer (concat "echo:" (mapconcat #'identity (make-list 3040 "word") " ")))
        (llmster-test--wait (lambda () (and asked (not (llmster-streaming-p buffer))
                                            (with-current-buffer buffer
                                              (string-empty-p (string-trim (buffer-substring llmster--input-start (point-max)))))))))
      (should (string-match-p "would fill the context (ctx .*/4k 9[0-9]%)" (car asked)))
      (should (string-match-p "acme/tiny-1b with a 8192-token context" (nth 2 (assq ?g (cdr asked)))))
      (should (assq ?r (cdr asked)))
      (with-current-buffer buffer
        (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
          (should (= (length messages) 4))
          (should (equal (alist-get 'status (car (last (append messages nil)))) "complete")))))))

(ert-deftest llmster-test-lm-studio-chats-are-previewed-and-imported-once ()
  (llmster-test--with-llmster
    (let ((directory (expand-file-name "lmstudio/conversations" home)) (asked nil))
      (make-directory directory t)
      (with-temp-file (expand-file-name "1733000000000.conversation.json" directory)
        (insert "{\"name\":\"From LM Studio\",\"createdAt\":1733000000000,\"messages\":["
                "{\"versions\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi there\"},"
                "{\"type\":\"file\",\"fileIdentifier\":\"gone.png\",\"name\":\"gone.png\"}]}]},"
                "{\"versions\":[{\"role\":\"assistant\",\"type\":\"multiStep\",\"steps\":[{\"type\":\"contentBlock\","
                "\"content\":[{\"type\":\"text\",\"text\":\"hello back\"}]}]}]}]}"))
      (with-temp-file (expand-file-name "1733000000001.conversation.json" directory) (insert "{\"name\": "))
      (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (setq asked prompt) t)))
        (let ((answer (llmster-import-lmstudio directory)))
          (should (string-match-p "\\`1 chats, 2 messages, 0 folders in .*images not found: gone.png .*cannot be read: 1733000000001.conversation.json" asked))
          (should (equal (alist-get 'imported answer) 1))))
      (should (equal (alist-get 'title (elt (alist-get 'conversations (llmster-test--call "conversations/list")) 0))
                     "From LM Studio"))
      (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (setq asked prompt) t)))
        (should (equal (alist-get 'alreadyThere (llmster-import-lmstudio directory)) 1))
        (should (string-match-p "1 imported before" asked))))))

(ert-deftest llmster-test-tool-calls-show-arguments-status-and-folded-output ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:tools]] hi")
      (llmster-test--wait-reply buffer)
      (dolist (chat '(streamed reopened))
        (with-current-buffer (if (eq chat 'streamed) buffer (llmster-test--reopen buffer))
          (let ((text (buffer-string)))
            (should (string-match-p "⚙ search_docs({\"query\":\"sse\"}) ✓ done\n" text))
            ;; An unknown tool's failure carries no arguments (streaming-events.md: only invalid_arguments has them).
            (should (string-match-p "⚙ open_browser() ✗ failed: Cannot find tool open_browser\n" text)))
          (let ((output (car (llmster--folds 'output))))
            (should output)
            (should (string-match-p "\\`▸ output: [0-9]+ lines\n\\'" (get-char-property (overlay-start output) 'display)))
            (should (string-prefix-p "Found 3 results" (buffer-substring-no-properties (overlay-start output) (overlay-end output))))
            (goto-char (overlay-start output))
            (llmster-toggle-reasoning)
            (should-not (get-char-property (overlay-start output) 'display))
            ;; On the call's line too.
            (goto-char (point-min))
            (search-forward "⚙ search_docs")
            (llmster-toggle-reasoning)
            (should (get-char-property (overlay-start output) 'display))))))))

;; Reasoning, then search_docs, then "Let me look that up…", then the failed open_browser, then the answer.
(ert-deftest llmster-test-reasoning-tool-calls-and-text-keep-the-servers-order ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:tools]] café crème")
      (llmster-test--wait-reply buffer)
      (dolist (chat '(streamed reopened))
        (with-current-buffer (if (eq chat 'streamed) buffer (llmster-test--reopen buffer))
          (let* ((reply (progn (goto-char (point-min)) (search-forward "### Assistant\n")))
                 (fold (car (llmster--folds 'reasoning)))
                 (order (mapcar (lambda (needle) (save-excursion (goto-char reply) (search-forward needle nil t)))
                                '("⚙ search_docs" "Let me look that up in the docs first." "⚙ open_browser" "You said: *café crème*"))))
            (should fold)
            (should (string-match-p "café crème" (buffer-substring-no-properties (overlay-start fold) (overlay-end fold))))
            (should (cl-every #'identity order))
            (should (< (overlay-end fold) (car order)))
            (should (equal order (sort (copy-sequence order) #'<)))))))))

;; The parts come from llmster rpc: the buffer follows them, not offsets of its own reading.
(ert-deftest llmster-test-a-saved-reply-is-drawn-from-its-parts ()
  (let* ((calls '(((name . "first") (status . "succeeded") (answerOffset . 0) (reasoningOffset . 0))
                  ((name . "second") (status . "failed") (failureReason . "no such tool") (answerOffset . 0))))
         (message `((role . "assistant") (status . "complete") (text . "Voilà → \n\nça marche")
                    (reasoning . "Pensée d'abord.\n\nPuis « ceci ».") (reasoningSeconds . 2.25) (toolCalls . ,calls)
                    (parts ((kind . "reasoning") (text . "Pensée d'abord.") (reasoningLabel . "Reasoning")) ((kind . "tool") (index . 0))
                           ((kind . "reasoning") (text . "Puis « ceci ».") (reasoningLabel . "Reasoning")) ((kind . "text") (text . "Voilà → \n\n"))
                           ((kind . "tool") (index . 1)) ((kind . "text") (text . "ça marche"))))))
    (with-temp-buffer
      (llmster--insert-saved-reply message (point-marker))
      (should (equal (buffer-substring-no-properties (point-min) (point-max))
                     "### Assistant\nPensée d'abord.\n⚙ first() ✓ done\nPuis « ceci ».\nVoilà → \n\n⚙ second() ✗ failed: no such tool\nça marche"))
      ;; Two parts of reasoning: rpc labels neither with the time, which covers both.
      (should (equal (mapcar (lambda (fold) (overlay-get fold 'llmster-summary)) (llmster--folds 'reasoning))
                     '("Reasoning" "Reasoning"))))
    (with-temp-buffer
      (llmster--insert-saved-reply `((role . "assistant") (status . "complete") (text . "Oui.") (reasoning . "Hmm.")
                                     (reasoningSeconds . 1020) (reasoningLabel . "Thought for 1,020.0 s")
                                     (parts ((kind . "reasoning") (text . "Hmm.") (seconds . 1020) (reasoningLabel . "Thought for 1,020.0 s"))
                                            ((kind . "text") (text . "Oui.")))
                                     (stats (reasoning_output_tokens . 1) (tokens_per_second . 1)))
                                   (point-marker))
      ;; rpc's label, as it sends it (the engine groups thousands).
      (should (equal (mapcar (lambda (fold) (overlay-get fold 'llmster-summary)) (llmster--folds 'reasoning))
                     '("Thought for 1,020.0 s"))))))

(ert-deftest llmster-test-lost-server-context-offers-a-fresh-one ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (asked nil))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (llmster-test--reset-server)
      (cl-letf (((symbol-function 'read-multiple-choice) (lambda (prompt choices) (setq asked (cons prompt choices)) (assq ?e choices))))
        (llmster-test--send buffer "echo:second")
        (llmster-test--wait (lambda () (with-current-buffer buffer
                                         (and (not (llmster-streaming-p)) (string-match-p "### Assistant\nsecond\n" (buffer-string)))))))
      (should (string-match-p "fresh" (car asked)))
      (should (equal (mapcar #'cadr (cdr asked)) '("recap" "empty" "not now")))
      (should-not (string-prefix-p "[llmster recap:" (llmster-test--last-chat-input)))
      (with-current-buffer buffer
        ;; The lost send saved nothing and is not shown: the message went again, once, as a new one.
        (should (string-match-p "\\`### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:second\n\n### Assistant\nsecond\n\n### You\n\\'"
                                (buffer-string)))
        (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
          (should (equal (mapcar (lambda (m) (alist-get 'text m)) messages) '("echo:first" "first" "echo:second" "second")))
          (should (equal (alist-get 'status (car (last messages))) "complete")))))))

(defun llmster-test--last-chat-input ()
  "The `input' of the last chat request the simulator received."
  (let ((buffer (url-retrieve-synchronously (concat (llmster-test--start-simulator) "/__sim/requests") t)))
    (unwind-protect
        (with-current-buffer buffer
          (goto-char (point-min))
          (re-search-forward "\n\n")
          (let* ((requests (llmster--json-parse (decode-coding-string (buffer-substring (point) (point-max)) 'utf-8)))
                 (chat (car (last (cl-remove-if-not (lambda (r) (equal (alist-get 'path r) "/api/v1/chat")) requests))))
                 (input (alist-get 'input (alist-get 'body chat))))
            (if (stringp input) input (llmster--json-encode input))))
      (kill-buffer buffer))))

(ert-deftest llmster-test-a-lost-context-can-continue-with-a-recap ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (shown nil))
      (llmster-test--send buffer "echo:remember the heron")
      (llmster-test--wait-reply buffer)
      (llmster-test--reset-server)
      (cl-letf (((symbol-function 'read-multiple-choice) (lambda (_prompt choices) (assq ?r choices)))
                ((symbol-function 'message) (lambda (format &rest args) (push (apply #'format-message format args) shown))))
        (llmster-test--send buffer "recall")
        ;; The lost send, then its answer in the fresh context.
        (llmster-test--wait (lambda () (cl-find-if (lambda (line) (string-match-p "recap of the earlier turns" line)) shown))))
      (let ((input (llmster-test--last-chat-input)))
        (should (string-prefix-p "[llmster recap:" input))
        (should (string-match-p "User: echo:remember the heron" input)))
      (with-current-buffer buffer
        (should-not (string-match-p "\\[error" (buffer-string)))
        (should (string-match-p "### You\nrecall\n\n### Assistant\n" (buffer-string)))
        (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
          (should (equal (mapcar (lambda (m) (alist-get 'role m)) messages) '("user" "assistant" "user" "assistant")))
          (should (equal (alist-get 'text (nth 2 messages)) "recall"))
          (should (equal (alist-get 'status (car (last messages))) "complete")))))))

(ert-deftest llmster-test-fork-opens-a-new-conversation-from-a-reply ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (llmster-test--send buffer "echo:two")
      (llmster-test--wait-reply buffer)
      (let* ((original (buffer-local-value 'llmster--conversation-id buffer))
             (fork (with-current-buffer buffer (llmster-fork 1))))
        (should (buffer-live-p fork))
        (should-not (eq fork buffer))
        (with-current-buffer fork
          (should (string-match-p "\\`### You\necho:one\n\n### Assistant\none\n\n### You\n\\'" (buffer-string)))
          (should (string-match-p "Fork of \"echo:one\" at reply 1" (format "%s" header-line-format)))
          (llmster-test--send fork "echo:three")
          (llmster-test--wait-reply fork)
          (should (string-match-p "### Assistant\nthree\n" (buffer-string))))
        ;; The original is unchanged, and the list marks the fork.
        (should (equal (mapcar (lambda (m) (alist-get 'text m)) (alist-get 'messages (llmster-test--call "conversations/get" 'id original)))
                       '("echo:one" "one" "echo:two" "two")))
        (with-current-buffer (llmster-list-conversations)
          (goto-char (point-min))
          (should (re-search-forward "echo:one, reply 1" nil t))
          ;; f on the original's line forks it at its last reply.
          (goto-char (point-min))
          (while (and (not (equal (tabulated-list-get-id) original)) (zerop (forward-line 1))))
          (let ((again (llmster-fork)))
            (should (string-match-p "### Assistant\ntwo\n" (with-current-buffer again (buffer-string))))))
        (with-current-buffer buffer
          (should-error (llmster-fork 9) :type 'user-error))))))

(defun llmster-test--decline-fresh-context (buffer text)
  "Send TEXT in chat BUFFER after the server lost its context, and decline the offer."
  (let ((asked nil))
    (llmster-test--reset-server)
    (cl-letf (((symbol-function 'read-multiple-choice) (lambda (_prompt choices) (setq asked t) (assq ?n choices))))
      (llmster-test--send buffer text)
      (llmster-test--wait (lambda () asked)))))

(ert-deftest llmster-test-a-declined-fresh-context-leaves-the-message-in-the-input ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (file (make-temp-file "llmster-notes-" nil ".txt" "the notes\n")))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer (llmster-add-context file buffer))
      (llmster-test--decline-fresh-context buffer "echo:second")
      (with-current-buffer buffer
        ;; Nothing was saved: the exchange is not drawn, the message is back to send, its context still attached.
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:second"))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:second"))
        (should llmster--context)
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:first" "first")))
        ;; The command the offer named sends it later, as a new message with its context.
        (llmster-fresh-context)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "\\`### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:second\n\n\\[context: [^]]+\\]\n\n### Assistant\nsecond\n\n### You\n\\'"
                                (buffer-string)))
        (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
          (should (equal (mapcar (lambda (m) (alist-get 'text m)) messages) '("echo:first" "first" "echo:second" "second")))
          (should (alist-get 'context (nth 2 messages))))
        ;; After a reply the command answers the last message again, in place.
        (llmster-test--reset-server)
        (llmster-fresh-context)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### You\necho:second\n\n\\[context: [^]]+\\]\n\n### Assistant\nsecond\n\n### You\n\\'" (buffer-string)))
        (should (= 4 (length (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))))))

(ert-deftest llmster-test-a-reopened-chat-keeps-a-declined-message-as-its-draft ()
  ;; Older versions left a message whose send lost the context unanswered in the library; now declining the
  ;; fresh context leaves nothing there, and the message comes back as the chat's draft.
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (llmster-test--decline-fresh-context buffer "echo:second")
      (with-current-buffer buffer
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:second")))
      (with-current-buffer (llmster-test--reopen buffer)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:second"))
        (should-not (string-match-p "unanswered" (buffer-string)))
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:first" "first")))
        ;; Sent again, it is offered a fresh context again.
        (cl-letf (((symbol-function 'read-multiple-choice) (lambda (_prompt choices) (assq ?e choices))))
          (llmster-send)
          (llmster-test--wait (lambda () (string-match-p "### Assistant\nsecond\n" (buffer-string))))
          (llmster-test--wait-reply (current-buffer)))
        (should (string-match-p "### Assistant\nfirst\n\n### You\necho:second\n\n### Assistant\nsecond\n\n### You\n\\'" (buffer-string)))))))

;; The message "my long prompt" put back after a failed send: more typed after it, it is sent and answered.
(defun llmster-test--send-after-failure (buffer)
  (with-current-buffer buffer
    (goto-char (point-max))
    (insert " echo:works")
    (llmster-send)
    (llmster-test--wait-reply buffer)
    (should (string-match-p "### You\nmy long prompt echo:works\n\n### Assistant\nworks" (buffer-string)))))

(ert-deftest llmster-test-a-failed-send-puts-the-message-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (llmster-test--send buffer "[[sim:status=500]] my long prompt")
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\n[[sim:status=500]] my long prompt"))
        (should (equal (length (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))) 2))
        (goto-char (point-max))
        (search-backward "[[sim:status=500]] ")
        (replace-match "")
        (llmster-test--send-after-failure buffer)))))

(defun llmster-test--answer-once-then-stop (buffer)
  "Send one message in BUFFER and wait for its reply, then stop the chat's llmster."
  (llmster-test--send buffer "echo:first")
  (llmster-test--wait-reply buffer)
  (with-current-buffer buffer (delete-process llmster--process)))

(defmacro llmster-test--fails-without-llmster (form)
  "Check that FORM fails while the llmster program cannot be started."
  `(let ((llmster-program "no-such-llmster"))
     (should-error ,form)))

(ert-deftest llmster-test-a-send-when-llmster-cannot-start-puts-the-message-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--answer-once-then-stop buffer)
      (with-current-buffer buffer
        (llmster-test--fails-without-llmster (llmster-test--send buffer "my long prompt"))
        ;; Not stuck "waiting for the server": the message is back where it was typed, and sends once llmster runs.
        (should-not llmster--stream)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\nmy long prompt"))
        (llmster-test--send-after-failure buffer)))))

(ert-deftest llmster-test-a-chat-without-a-model-offers-the-servers-models ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (offered nil))
      ;; Nothing loaded and no default model: the send comes back asking for a model, which is offered; the
      ;; one chosen answers the message, which the input area held meanwhile.
      (dolist (model (append (alist-get 'models (llmster-test--call "models/list")) nil))
        (dolist (instance (append (alist-get 'loaded_instances model) nil))
          (llmster-test--call "models/unload" 'instanceId (alist-get 'id instance))))
      ;; Declined, the message stays in the input area and nothing is saved.
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt candidates &rest _) (setq offered (cons prompt candidates)) "")))
        (llmster-test--send buffer "echo:which model")
        (llmster-test--wait (lambda () (and offered (not (llmster-streaming-p buffer))))))
      (with-current-buffer buffer
        (should (equal (buffer-string) "### You\necho:which model"))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:which model")))
      (should-not (append (alist-get 'conversations (llmster-test--call "conversations/list")) nil))
      (setq offered nil)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt candidates &rest _) (setq offered (cons prompt candidates)) "acme/tiny-1b")))
        (with-current-buffer buffer (llmster-send))
        (llmster-test--wait (lambda () (and offered (not (llmster-streaming-p buffer))
                                            (string-match-p "### Assistant\nwhich model" (buffer-string))))))
      (should (string-match-p "No model is chosen" (car offered)))
      (should (member "acme/tiny-1b" (cdr offered)))
      (with-current-buffer buffer
        (should (equal (alist-get 'modelKey (alist-get 'conversation (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       "acme/tiny-1b"))))))

(ert-deftest llmster-test-a-regenerate-or-edit-when-llmster-cannot-start-keeps-the-exchange ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--answer-once-then-stop buffer)
      (with-current-buffer buffer
        (llmster-test--fails-without-llmster (llmster-regenerate))
        ;; Nothing left: the answer asked again stays in view, and the chat is not left waiting.
        (should-not llmster--stream)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\n"))
        ;; So does an edit: the edited text stays in the input area, still editing the last message.
        (llmster-edit-last)
        (delete-region llmster--input-start (point-max))
        (goto-char (point-max))
        (insert "echo:edited")
        (llmster-test--fails-without-llmster (llmster-send))
        (should-not llmster--stream)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:edited"))
        (should llmster--edit-next)
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:edited\n\n### Assistant\nedited\n\n### You\n"))
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:edited" "edited")))))))

(ert-deftest llmster-test-a-failed-regenerate-or-edit-shows-the-exchange-the-library-kept ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (shown nil) (notes (get-buffer-create "plover.txt")))
      (with-current-buffer notes (erase-buffer) (insert "The secret word is plover.\n"))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (cl-letf (((symbol-function 'message)
                   (lambda (format &rest args) (when format (push (apply #'format-message format args) shown))))
                  ((symbol-function 'y-or-n-p) (lambda (&rest _) t)))
          ;; The server fails the edit (HTTP 500): nothing was saved, so the exchange it would have replaced comes
          ;; back from the library, and the edited text waits in the input area, still replacing the last message,
          ;; with the context item attached to it.
          (goto-char (point-max))
          (insert "note to self")
          (llmster-edit-last)
          (delete-region llmster--input-start (point-max))
          (goto-char (point-max))
          (insert "[[sim:status=500]] echo:edited")
          (llmster-add-context notes buffer)
          (llmster-send)
          (goto-char (point-max))
          (insert "typed meanwhile")
          (llmster-test--wait-reply buffer)
          (llmster-test--wait (lambda () (string-prefix-p "### You\necho:first\n" (buffer-string))))
          (should (equal (buffer-string)
                         "### You\necho:first\n\n### Assistant\nfirst\n\n### You\n[[sim:status=500]] echo:edited"))
          (should (string-match-p "your edit is back in the input area" (car shown)))
          (should (string-match-p "Editing the last message" (format "%s" header-line-format)))
          (should (equal (mapcar #'car llmster--context) '("plover.txt")))
          ;; Leaving the edit brings back the draft it displaced and what was typed while it was sent; the next
          ;; send is a message again, which a fresh context would not resend as the edit.
          (llmster-cancel)
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max))
                         "note to self\n\ntyped meanwhile"))
          (should-not llmster--returned)
          ;; Asking again of a model the server does not have saves nothing either: the answer it would have
          ;; replaced comes back.
          (setq llmster--model "acme/no-such-model")
          (llmster-regenerate)
          (llmster-test--wait-reply buffer)
          (llmster-test--wait (lambda () (string-match-p "not downloaded.*(the last answer stays)" (car shown))))
          (llmster-test--wait (lambda () (string-match-p "### Assistant\nfirst\n" (buffer-string))))
          (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\nnote to self\n\ntyped meanwhile"))
          (setq llmster--model nil)
          (should (equal (mapcar (lambda (m) (alist-get 'text m))
                                 (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                         '("echo:first" "first")))
          (should-not (cdr (alist-get 'alternatives (llmster--alternatives-of
                                                     (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))
                                                     nil))))
          ;; Sent again, the edit keeps the attachments of the message it replaces (none): the context item is
          ;; not drawn under it and waits for the next message.
          (llmster-edit-last)
          (delete-region llmster--input-start (point-max))
          (insert "echo:edited")
          (llmster-send)
          (llmster-test--wait-reply buffer)
          (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
            (should (equal (mapcar (lambda (m) (alist-get 'text m)) messages) '("echo:edited" "edited")))
            (should-not (alist-get 'context (car messages))))
          (should (string-prefix-p "### You\necho:edited\n\n### Assistant\nedited\n" (buffer-string)))
          (should (equal (mapcar #'car llmster--context) '("plover.txt"))))))))

(ert-deftest llmster-test-an-llmster-that-fails-to-initialize-is-not-kept ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (when (llmster--live-p) (delete-process llmster--process))
        ;; A program that starts and refuses initialize, then stays alive.
        (let ((llmster-program "sh")
              (llmster-program-arguments
               '("-c" "read x; id=$(echo \"$x\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/'); echo \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,\\\"error\\\":{\\\"code\\\":-32600,\\\"message\\\":\\\"refused\\\"}}\"; exec sleep 60" "--")))
          (should-error (llmster-test--send buffer "my long prompt")))
        (should-not (llmster--live-p))
        (should (equal (buffer-string) "### You\nmy long prompt"))
        (llmster-test--send-after-failure buffer)))))

(ert-deftest llmster-test-c-g-while-llmster-starts-puts-the-message-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (when (llmster--live-p) (delete-process llmster--process))
        ;; A program that never answers initialize; C-g (the quit flag a key would set) ends the wait.
        (let ((llmster-program "sh")
              (llmster-program-arguments '("-c" "exec sleep 60" "--")))
          (run-at-time 0.3 nil (lambda () (setq quit-flag t)))
          (should (equal (condition-case caught (progn (llmster-test--send buffer "my long prompt") nil)
                           (quit caught))
                         '(quit))))
        ;; Not kept half started, not left waiting: the message is back, and sends once llmster runs.
        (should-not (llmster--live-p))
        (should-not llmster--stream)
        (should (equal (buffer-string) "### You\nmy long prompt"))
        (llmster-test--send-after-failure buffer)))))

(ert-deftest llmster-test-a-call-given-up-on-is-cancelled-in-llmster-too ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (let ((llmster-request-timeout 0.5))
      (should-error (llmster--call "chat/send" '((text . "[[sim:stall=30]] echo:one two three four five six")))))
    ;; The reply stops now, kept incomplete, rather than streaming on for 30 s with no one waiting for it.
    (llmster-test--wait
     (lambda ()
       (let* ((conversation (elt (alist-get 'conversations (llmster-test--call "conversations/list")) 0))
              (messages (and conversation
                             (alist-get 'messages (llmster-test--call "conversations/get"
                                                                      'id (alist-get 'id conversation))))))
         (and messages (equal (alist-get 'status (elt messages (1- (length messages)))) "incomplete")))))))

(ert-deftest llmster-test-an-unknown-preset-leaves-the-typed-message-as-it-was ()
  (llmster-test--with-llmster
    (let* ((buffer (let ((llmster-default-preset "no-such-preset")) (llmster)))
           (notes (get-buffer-create "plover.txt")))
      (with-current-buffer notes (erase-buffer) (insert "The secret word is plover.\n"))
      (with-current-buffer buffer
        (llmster-add-context notes buffer)
        (should-error (llmster-test--send buffer "my long prompt"))
        ;; The conversation for the preset could not be made: nothing was drawn as sent, the item stays attached.
        (should-not llmster--stream)
        (should-not llmster--conversation-id)
        (should (equal (buffer-string) "### You\nmy long prompt"))
        (should (equal (mapcar #'car llmster--context) '("plover.txt")))))))

(ert-deftest llmster-test-fresh-context-command-answers-again ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:only once")
      (llmster-test--wait-reply buffer)
      (llmster-test--reset-server)
      (with-current-buffer buffer
        (llmster-fresh-context)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "\\`### You\necho:only once\n\n### Assistant\nonly once\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-a-failed-first-send-puts-the-prompt-back ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (llmster-test--send buffer "[[sim:status=500]] my long prompt")
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\n[[sim:status=500]] my long prompt"))
        (should-not llmster--conversation-id)
        (should-not (alist-get 'conversations (llmster-test--call "conversations/list")))
        ;; The prompt can be fixed and sent again.
        (goto-char (point-min))
        (search-forward "[[sim:status=500]] ")
        (replace-match "")
        (goto-char (point-max))
        (insert " echo:works")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### Assistant\nworks" (buffer-string)))))))

(defun llmster-test--chat-with-draft (draft)
  "A chat with one exchange and DRAFT typed in its input: (BUFFER . CONVERSATION-ID)."
  (let ((buffer (llmster)))
    (llmster-test--send buffer "echo:hello")
    (llmster-test--wait-reply buffer)
    (with-current-buffer buffer
      (goto-char (point-max))
      (insert draft)
      (cons buffer llmster--conversation-id))))

(ert-deftest llmster-test-unsent-text-is-kept-as-a-draft ()
  (llmster-test--with-llmster
    (pcase-let ((`(,buffer . ,id) (llmster-test--chat-with-draft "half a thought")))
      (kill-buffer buffer)
      (llmster-test--wait (lambda () (equal (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id)) "half a thought")))
      (with-current-buffer (llmster id)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "half a thought"))))))

(ert-deftest llmster-test-a-draft-keeps-its-indentation-and-loses-only-trailing-blanks ()
  (llmster-test--with-llmster
    (pcase-let ((`(,buffer . ,id) (llmster-test--chat-with-draft "    indented first line\n/second line\n\n")))
      (kill-buffer buffer)
      (llmster-test--wait (lambda () (equal (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id))
                                            "    indented first line\n/second line")))
      (with-current-buffer (llmster id)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "    indented first line\n/second line"))
        ;; Blanks alone are no draft.
        (goto-char (point-max))
        (delete-region llmster--input-start (point-max))
        (insert "  \n\t ")
        (llmster--save-draft t)
        (should (equal (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id)) ""))))))

(ert-deftest llmster-test-choosing-a-model-selects-it-for-the-conversation ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:on tiny")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (cl-letf (((symbol-function 'completing-read) (lambda (&rest _) "acme/thinker-8b")))
          (llmster-select-model))
        ;; The instance and rpc's context meter with the new model.
        (llmster-test--wait (lambda () (string-match-p "\\` \\[acme/thinker-8b ctx [0-9.k]+/[0-9.k]+ [0-9]+%\\]\\'" (or llmster--usage ""))))
        (let ((models (llmster-models)))
          (should (eq (alist-get 'loaded (cl-find "acme/thinker-8b" models :key (lambda (m) (alist-get 'key m)) :test #'equal)) t))
          ;; The load policy, not a bare load: the previous chat model was unloaded.
          (should-not (eq (alist-get 'loaded (cl-find "acme/tiny-1b" models :key (lambda (m) (alist-get 'key m)) :test #'equal)) t)))
        (should (equal (alist-get 'modelKey (alist-get 'conversation (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       "acme/thinker-8b"))))))

(ert-deftest llmster-test-a-model-chosen-before-the-first-message-follows-the-load-policy ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (cl-letf (((symbol-function 'completing-read) (lambda (&rest _) "acme/thinker-8b")))
          (llmster-select-model))
        (llmster-test--wait (lambda () (equal llmster--usage " [acme/thinker-8b]")))
        (let ((models (llmster-models)))
          (should (eq (alist-get 'loaded (cl-find "acme/thinker-8b" models :key (lambda (m) (alist-get 'key m)) :test #'equal)) t))
          ;; As the REPL's /model: the model the chat would have used is unloaded.
          (should-not (eq (alist-get 'loaded (cl-find "acme/tiny-1b" models :key (lambda (m) (alist-get 'key m)) :test #'equal)) t))))
      (llmster-test--send buffer "echo:on thinker")
      (llmster-test--wait-reply buffer)
      (should (equal (alist-get 'modelKey (llmster-test--conversation buffer)) "acme/thinker-8b")))))

;;;; Presets

(defun llmster-test--write-config (&rest lines)
  "Write LINES as llmster's config file in the sandboxed XDG home."
  (let ((dir (expand-file-name "llmster" (getenv "XDG_CONFIG_HOME"))))
    (make-directory dir t)
    (with-temp-file (expand-file-name "config" dir) (insert (string-join lines "\n") "\n"))))

(defun llmster-test--conversation (buffer)
  "The library's conversation shown in BUFFER."
  (alist-get 'conversation (llmster-test--call "conversations/get" 'id (buffer-local-value 'llmster--conversation-id buffer))))

(ert-deftest llmster-test-a-presets-template-fills-the-next-message ()
  (llmster-test--with-llmster
    (llmster-test--write-config "preset.polite.template = {{input}}, please")
    (let ((buffer (llmster)))
      (with-current-buffer buffer (llmster-apply-preset "polite"))
      (llmster-test--send buffer "echo:the summary")
      (llmster-test--wait-reply buffer)
      (llmster-test--send buffer "echo:again")
      (llmster-test--wait-reply buffer)
      ;; The engine filled the template, as ask --preset and the REPL's /preset do, for one message only.
      (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id (buffer-local-value 'llmster--conversation-id buffer)))))
        (should (equal (alist-get 'text (nth 0 messages)) "echo:the summary, please"))
        (should (equal (alist-get 'text (nth 2 messages)) "echo:again"))))))

(ert-deftest llmster-test-presets-start-a-new-chat-and-apply-to-the-current-one ()
  (llmster-test--with-llmster
    (llmster-test--write-config "preset.french.system = Answer in French." "preset.french.temperature = 0.3"
                                "preset.terse.system = Be terse." "preset.terse.model = acme/thinker-8b")
    (let ((buffer (cl-letf (((symbol-function 'completing-read)
                             (lambda (_prompt collection &rest _)
                               (should (equal (mapcar #'car collection) '("french" "terse")))
                               ;; The REPL's /presets line, from presets/list.
                               (should (equal (funcall (plist-get completion-extra-properties :annotation-function) "french")
                                              "  temperature 0.3 · \"Answer in French.\""))
                               ;; Aligned in one column after names of different widths.
                               (should (equal (funcall (plist-get completion-extra-properties :annotation-function) "terse")
                                              "   model acme/thinker-8b · \"Be terse.\""))
                               "french")))
                    (call-interactively #'llmster-new-chat-with-preset))))
      (llmster-test--send buffer "echo:bonjour")
      (llmster-test--wait-reply buffer)
      (let ((conversation (llmster-test--conversation buffer)))
        (should (equal (alist-get 'systemPrompt conversation) "Answer in French."))
        (should (equal (alist-get 'temperature (alist-get 'settings conversation)) 0.3)))
      (with-current-buffer buffer
        (llmster-apply-preset "terse")
        (should (equal (alist-get 'systemPrompt (llmster-test--conversation buffer)) "Be terse."))
        ;; The preset's model is the chat's from the next message on.
        (should (equal (alist-get 'modelKey (llmster-test--conversation buffer)) "acme/thinker-8b"))
        (should (equal llmster--model "acme/thinker-8b"))
        ;; The prompt changed after the first reply: the next message starts a fresh server context.
        (should llmster--fresh-next)
        (should-error (llmster-apply-preset "nosuch"))))
    (let* ((llmster-default-preset "terse")
           (buffer (llmster)))
      ;; A first send that fails leaves no Untitled conversation; the next try has the preset again.
      (llmster-test--send buffer "[[sim:status=500]] hi")
      (llmster-test--wait-reply buffer)
      (llmster-test--wait (lambda () (= 1 (length (alist-get 'conversations (llmster-test--call "conversations/list"))))))
      (with-current-buffer buffer (delete-region llmster--input-start (point-max)))
      (llmster-test--send buffer "echo:hi")
      (llmster-test--wait-reply buffer)
      (should (equal (alist-get 'systemPrompt (llmster-test--conversation buffer)) "Be terse."))
      (should (= 2 (length (alist-get 'conversations (llmster-test--call "conversations/list"))))))))

(ert-deftest llmster-test-presets-added-while-llmster-runs-are-seen ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (should-not (alist-get 'presets (llmster-test--call "presets/list")))
    (llmster-test--write-config "preset.pirate.system = Talk like a pirate.")
    ;; The file changed: llmster reads it again before answering.
    (should (equal (mapcar (lambda (p) (alist-get 'name p)) (alist-get 'presets (llmster-test--call "presets/list")))
                   '("pirate")))
    (llmster-test--write-config "preset.pirate.system = Talk like a pirate." "preset.poet.system = Rhyme.")
    (should (equal (mapcar (lambda (p) (alist-get 'name p)) (llmster-reload-config)) '("pirate" "poet")))))

;;;; Library: titles, search, nested folders

(ert-deftest llmster-test-chat-buffers-are-named-after-their-conversation ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:Naming things")
      (llmster-test--wait-reply buffer)
      (llmster-test--wait (lambda () (string-prefix-p "*llmster: echo:Naming things" (buffer-name buffer))))
      (should (string-prefix-p "*llmster: echo:Naming things"
                               (buffer-name (llmster-test--reopen buffer)))))))

(ert-deftest llmster-test-an-open-conversation-is-shown-in-its-buffer ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:just once")
      (llmster-test--wait-reply buffer)
      (should (eq (llmster (buffer-local-value 'llmster--conversation-id buffer)) buffer)))))

(ert-deftest llmster-test-search-picks-and-lists-matches ()
  (llmster-test--with-llmster
    (let ((first (llmster)) (second (llmster)))
      (llmster-test--send first "echo:zebra crossing ahead")
      (llmster-test--send second "echo:nothing to see")
      (llmster-test--wait-reply first)
      (llmster-test--wait-reply second)
      (let (offered)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt table &rest _) (setq offered (all-completions "" table)) (car offered))))
          (with-current-buffer (llmster-search "zebra")
            (should (string-match-p "### Assistant\nzebra crossing ahead" (buffer-string)))))
        (should (= (length offered) 1))
        (should (string-match-p "zebra" (car offered))))
      (with-current-buffer (llmster-search-list "zebra")
        (goto-char (point-min))
        (should (search-forward "zebra" nil t))
        (should-not (search-forward "nothing to see" nil t))
        (goto-char (point-min))
        (search-forward "zebra")
        (with-current-buffer (llmster-chats-open)
          (should (string-match-p "zebra crossing ahead" (buffer-string))))))))

(ert-deftest llmster-test-move-to-nested-folders ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:filed away")
      (llmster-test--wait-reply buffer))
    (with-current-buffer (llmster-list-conversations)
      (goto-char (point-min))
      (search-forward "filed away")
      (llmster-chats-move "Work/Research")
      (goto-char (point-min))
      (search-forward "filed away")
      (should (equal (aref (tabulated-list-get-entry) 1) "Work/Research"))
      ;; An existing path is reused, not created twice.
      (llmster-chats-move "Work")
      (llmster-chats-move "Work/Research")
      (should (equal (mapcar (lambda (f) (alist-get 'path f)) (alist-get 'folders (llmster-test--call "folders/list")))
                     '("Work" "Work/Research"))))))

;;;; gptel-style: regions, rewrite, context, settings, regenerate, edit, menu

(ert-deftest llmster-test-send-region-with-an-instruction ()
  (llmster-test--with-llmster
    (with-temp-buffer
      (emacs-lisp-mode)
      (insert "(message \"hi\")\n")
      (let ((name (buffer-name))
            (chat (llmster-send-region (point-min) (point-max) "echo:looks fine")))
        (llmster-test--wait-reply chat)
        (with-current-buffer chat
          (should (string-match-p (concat "### You\nFile: " (regexp-quote name) "\n```emacs-lisp\n(message \"hi\")\n```\n\necho:looks fine")
                                  (buffer-string)))
          (should (string-match-p "### Assistant\nlooks fine" (buffer-string))))))))

(ert-deftest llmster-test-a-region-goes-after-the-draft-and-not-into-an-edit ()
  (llmster-test--with-llmster
    (let ((chat (llmster)))
      (llmster-test--send chat "echo:first")
      (llmster-test--wait-reply chat)
      (with-temp-buffer
        (insert "from a region")
        ;; Editing its last message, the chat refuses the region: sent, it would have replaced that message.
        (with-current-buffer chat
          (llmster-edit-last)
          (delete-region llmster--input-start (point-max))
          (insert "echo:edited"))
        (let ((editing (with-current-buffer chat (buffer-string))))
          (should (string-match-p "editing its last message"
                                  (cadr (should-error (llmster-send-region (point-min) (point-max) "echo:check" chat)
                                                      :type 'user-error))))
          (should (equal (with-current-buffer chat (buffer-string)) editing)))
        ;; Otherwise what is typed there stays, the region after it.
        (with-current-buffer chat
          (llmster-cancel)
          (goto-char (point-max))
          (insert "echo:draft"))
        (llmster-send-region (point-min) (point-max) "check" chat)
        (llmster-test--wait-reply chat)
        (with-current-buffer chat
          (should (string-match-p "### You\necho:draft\n\n\\(?:.*\n\\)*from a region\n\\(?:.*\n\\)*check\n\n### Assistant\ndraft"
                                  (buffer-string))))
        ;; A chat whose reply streams refuses the region before it touches the input.
        (llmster-test--send chat "[[sim:stall=30]] echo:slow one two three four")
        (llmster-test--wait (lambda () (with-current-buffer chat (string-match-p "### Assistant\nslow" (buffer-string)))))
        (let ((streaming (with-current-buffer chat (buffer-string))))
          (should-error (llmster-send-region (point-min) (point-max) "check" chat) :type 'user-error)
          (should (equal (with-current-buffer chat (buffer-string)) streaming)))
        (with-current-buffer chat (llmster-cancel))
        (llmster-test--wait-reply chat)))))

(defun llmster-test--rewrite (instruction)
  "Rewrite a buffer holding \"old text\" with INSTRUCTION; return (SOURCE . DIFF)."
  (let ((source (generate-new-buffer "notes.txt")))
    (with-current-buffer source
      (insert "keep\nold text\nkeep too\n")
      (llmster-rewrite 6 15 instruction))
    (llmster-test--wait (lambda () (let ((diff (get-buffer "*llmster rewrite*")))
                                     (and diff (buffer-local-value 'llmster--rewrite diff)))))
    (cons source (get-buffer "*llmster rewrite*"))))

(ert-deftest llmster-test-rewrite-shows-a-diff-to-accept-or-reject ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (pcase-let ((`(,source . ,diff) (llmster-test--rewrite "echo:```\nnew text\n```")))
      (with-current-buffer diff
        (should (string-match-p "^-old text$" (buffer-string)))
        (should (string-match-p "^\\+new text$" (buffer-string)))
        (llmster-rewrite-accept))
      (should-not (buffer-live-p diff))
      (should (equal (with-current-buffer source (buffer-string)) "keep\nnew text\nkeep too\n")))
    (pcase-let ((`(,source . ,diff) (llmster-test--rewrite "echo:```\nother text\n```")))
      (with-current-buffer diff (llmster-rewrite-reject))
      (should (equal (with-current-buffer source (buffer-string)) "keep\nold text\nkeep too\n")))
    ;; The accepted rewrite is kept, in its folder; the rejected one is not.
    (llmster-test--wait (lambda () (= 1 (length (alist-get 'conversations (llmster-test--call "conversations/list"))))))
    (should (equal (alist-get 'folderPath (car (alist-get 'conversations (llmster-test--call "conversations/list"))))
                   "Rewrites"))))

(ert-deftest llmster-test-a-rewrite-diff-names-the-buffer-and-a-pending-rewrite-can-be-cancelled ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (pcase-let ((`(,source . ,diff) (llmster-test--rewrite "echo:```\nnew text\n```")))
      (with-current-buffer diff
        (should (string-match-p "^--- notes.txt (now)$" (buffer-string)))
        (should-not (string-match-p "#<buffer\\|/tmp/\\|Diff finished" (buffer-string)))
        (llmster-rewrite-reject))
      (kill-buffer source))
    (let ((source (generate-new-buffer "slow.txt")) (seen nil))
      (with-current-buffer source
        (insert "one\n")
        (llmster-rewrite 1 5 "[[sim:stall=30]] echo:alpha beta gamma delta"))
      (cl-letf* ((message-function (symbol-function 'message))
                 ((symbol-function 'message) (lambda (format &rest args)
                                               (when format (push (apply #'format format args) seen))
                                               (apply message-function format args))))
        (llmster-rewrite-cancel)
        (llmster-test--wait (lambda () (member "llmster: the rewrite was cancelled" seen))))
      (should-not llmster--pending-rewrite)
      (should (equal (with-current-buffer source (buffer-string)) "one\n"))
      (should-not (get-buffer "*llmster rewrite*"))
      (llmster-test--wait (lambda () (null (alist-get 'conversations (llmster-test--call "conversations/list"))))))))

(ert-deftest llmster-test-context-goes-with-the-next-message ()
  (llmster-test--with-llmster
    (let ((notes (generate-new-buffer "notes.txt"))
          (chat (llmster)))
      (with-current-buffer notes (insert "The secret word is plover.\n"))
      (llmster-add-context notes chat)
      (with-current-buffer chat
        (should (string-match-p "notes.txt" header-line-format))
        (llmster-test--send chat "echo:noted")
        (llmster-test--wait-reply chat)
        (should-not header-line-format)
        ;; The buffer went as llmster's context item, saved with the message; the message is what was typed.
        (let* ((message (car (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
               (item (car (alist-get 'context message))))
          (should (equal (alist-get 'text message) "echo:noted"))
          (should (equal (alist-get 'name item) "notes.txt"))
          (should (string-match-p "The secret word is plover." (alist-get 'text item))))
        (should (string-match-p "^\\[context: notes.txt\\]$" (buffer-string)))
        ;; Only the next message.
        (llmster-test--send chat "echo:again")
        (llmster-test--wait-reply chat)
        (should (equal (alist-get 'text (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)) 2)))
                       "echo:again"))))))

(ert-deftest llmster-test-context-attached-while-a-reply-streams-waits-for-the-next-message ()
  (llmster-test--with-llmster
    (let ((chat (llmster))
          (first (generate-new-buffer "first.txt"))
          (later (generate-new-buffer "later.txt")))
      (with-current-buffer first (insert "sent now\n"))
      (with-current-buffer later (insert "attached meanwhile\n"))
      (llmster-add-context first chat)
      (with-current-buffer chat
        (llmster-test--send chat "[[sim:stall=1]] echo:one two three four five")
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t))))
        (llmster-add-context later chat)
        (llmster-test--wait-reply chat)
        ;; The item that went with the message is done; the one attached while its reply streamed still waits.
        (should (equal (mapcar #'car llmster--context) '("later.txt")))
        (should (string-match-p "later.txt" (format "%s" header-line-format)))
        (llmster-test--send chat "echo:next")
        (llmster-test--wait-reply chat)
        (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
          (should (equal (mapcar (lambda (message) (mapcar (lambda (item) (alist-get 'name item)) (alist-get 'context message)))
                                 messages)
                         '(("first.txt") nil ("later.txt") nil))))
        (should-not llmster--context)))))

(ert-deftest llmster-test-editing-a-reopened-message-sent-with-context-takes-its-text-alone ()
  (llmster-test--with-llmster
    (let ((chat (llmster)) (notes (generate-new-buffer "notes.txt")))
      (with-current-buffer notes (insert "remember this\n"))
      (llmster-add-context notes chat)
      (llmster-test--send chat "echo:with notes")
      (llmster-test--wait-reply chat)
      (with-current-buffer (llmster-test--reopen chat)
        (should (string-match-p "^\\[context: notes.txt[^]]*\\]$" (buffer-string)))
        (llmster-edit-last)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:with notes"))))))

(ert-deftest llmster-test-system-prompt-and-reasoning-effort ()
  (llmster-test--with-llmster
    (with-current-buffer (llmster)
      (setq llmster--model "acme/thinker-8b")
      (llmster-set-system-prompt "Answer in French.")
      (llmster-test--send (current-buffer) "echo:oui")
      (llmster-test--wait-reply (current-buffer))
      (let ((conversation (alist-get 'conversation (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
        (should (equal (alist-get 'systemPrompt conversation) "Answer in French.")))
      (llmster-set-reasoning "low")
      (should (equal (alist-get 'reasoning (alist-get 'settings (alist-get 'conversation (llmster-test--call "conversations/get" 'id llmster--conversation-id)))) "low"))
      (should-error (llmster-set-reasoning "extreme"))
      ;; A new prompt after the first reply needs a fresh server context: the next send asks for one.
      (llmster-set-system-prompt "Answer in German.")
      (should llmster--fresh-next)
      (llmster-test--send (current-buffer) "echo:ja")
      (llmster-test--wait-reply (current-buffer))
      (should-not llmster--fresh-next)
      (should (string-match-p "\nja\n\n### You\n\\'" (buffer-string))))))

(ert-deftest llmster-test-regenerate-and-edit-the-last-message ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (llmster-regenerate)
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\n"))
        (should (= 2 (length (alist-get 'alternatives (llmster-test--call "conversations/alternatives" 'conversationId llmster--conversation-id)))))
        (llmster-edit-last)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one"))
        (should (string-match-p "Editing the last message" header-line-format))
        (delete-region llmster--input-start (point-max))
        (goto-char (point-max))
        (insert "echo:deux")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:deux\n\n### Assistant\ndeux\n\n### You\n"))
        (should-not header-line-format)
        (let* ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
               (turn (alist-get 'id (car messages))))
          (should (= 2 (length messages)))
          (should (equal (mapcar (lambda (m) (alist-get 'text m))
                                 (alist-get 'alternatives (llmster-test--call "conversations/alternatives"
                                                                              'conversationId llmster--conversation-id 'messageId turn)))
                         '("echo:one" "echo:deux"))))))))

(ert-deftest llmster-test-choosing-an-alternative-redraws-the-chat ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (should-error (llmster-choose-alternative))
        (llmster-regenerate)
        (llmster-test--wait-reply buffer)
        (goto-char (point-max))
        (insert "unsent")
        ;; Regenerating made a second answer; the first (the simulator answers alike) is chosen back.
        (let ((offered nil))
          (cl-letf (((symbol-function 'completing-read)
                     (lambda (_prompt collection &rest _)
                       (setq offered (mapcar #'car collection))
                       (car offered))))
            (llmster-choose-alternative))
          (should (equal offered '("1  one" "2* one"))))
        (should (= 0 (alist-get 'current (llmster-test--call "conversations/alternatives" 'conversationId llmster--conversation-id))))
        (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\nunsent"))
        ;; After an edit, the versions of the message are offered; choosing the first shows its answer.
        (delete-region llmster--input-start (point-max))
        (llmster-edit-last)
        (delete-region llmster--input-start (point-max))
        (insert "echo:deux")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt collection &rest _) (car (car collection)))))
          (llmster-choose-alternative))
        (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\n"))
        (llmster-test--send buffer "echo:trois")
        (llmster-test--wait-reply buffer)
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:one" "one" "echo:trois" "trois")))))))

(ert-deftest llmster-test-menu-offers-only-real-commands ()
  (let ((commands nil))
    (cl-labels ((walk (layout)
                  (cond ((and (vectorp layout)) (mapc #'walk layout))
                        ((and (consp layout) (plist-get (cdr-safe (cdr-safe layout)) :command))
                         (push (plist-get (cddr layout) :command) commands))
                        ((consp layout) (mapc #'walk layout)))))
      (walk (get 'llmster-menu 'transient--layout)))
    (should (> (length commands) 10))
    (dolist (command commands) (should (commandp command)))))

;;;; What users do: point after regenerate, rewrite line ends, drafts on exit, edit-last, errors, context

(ert-deftest llmster-test-point-stays-in-the-input-after-regenerate ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (llmster-regenerate)
        (llmster-test--wait-reply buffer)
        (should (>= (point) llmster--input-start))
        ;; Typing goes to the input, and sends.
        (insert "echo:two")
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:one\n\n### Assistant\none\n\n### You\necho:two\n\n### Assistant\ntwo\n\n### You\n"))))))

(ert-deftest llmster-test-a-rewrite-without-a-final-newline-keeps-the-lines-apart ()
  (llmster-test--with-llmster
    (llmster--ensure-process)
    (let ((source (generate-new-buffer "code.txt")))
      (with-current-buffer source
        (insert "a = 1\nb = 2\n")
        (llmster-rewrite 1 7 "echo:a = 10"))
      (llmster-test--wait (lambda () (let ((diff (get-buffer "*llmster rewrite*")))
                                       (and diff (buffer-local-value 'llmster--rewrite diff)))))
      (with-current-buffer "*llmster rewrite*" (llmster-rewrite-accept))
      (should (equal (with-current-buffer source (buffer-string)) "a = 10\nb = 2\n")))))

(ert-deftest llmster-test-drafts-are-kept-when-emacs-exits ()
  (llmster-test--with-llmster
    (let ((id (cdr (llmster-test--chat-with-draft "typed before C-x C-c"))))
      ;; What `kill-emacs' runs (and no `kill-buffer-hook').
      (run-hooks 'kill-emacs-hook)
      (should (equal (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id)) "typed before C-x C-c")))))

(ert-deftest llmster-test-a-failed-reply-shows-its-error-once ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:fine")
      (llmster-test--wait-reply buffer)
      (llmster-test--send buffer "[[sim:error=internal_error]] echo:broken")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (should (= 1 (how-many "\\[error" (point-min) (point-max))))))))

(ert-deftest llmster-test-edit-last-asks-before-replacing-typed-text-and-can-be-left ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (asked nil))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert "half typed")
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (setq asked prompt) nil)))
          (should-error (llmster-edit-last) :type 'user-error))
        (should asked)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "half typed"))
        (should-not header-line-format)
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (_) t)))
          (llmster-edit-last))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one"))
        (should (string-match-p "C-c C-k leaves" header-line-format))
        ;; C-c C-k leaves the edit: the typed text is back, and the next send is a new message.
        (llmster-cancel)
        (should-not header-line-format)
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "half typed"))
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (= 4 (length (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))
        ;; An edit that is saved gives back the input it set aside, before what was typed as its reply streamed.
        (goto-char (point-max))
        (insert "second draft")
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (_) t)))
          (llmster-edit-last))
        (delete-region llmster--input-start (point-max))
        (insert "echo:edited")
        (llmster-send)
        (goto-char (point-max))
        (insert "typed meanwhile")
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### You\necho:edited\n\n### Assistant\nedited" (buffer-string)))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max))
                       "second draft\n\ntyped meanwhile"))
        (should-not header-line-format)
        (should (= 4 (length (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))))))

(ert-deftest llmster-test-context-defaults-to-the-buffer-and-takes-regions ()
  (llmster-test--with-llmster
    (let ((notes (generate-new-buffer "plan.txt"))
          (chat (llmster)))
      (with-current-buffer notes (insert "line one\nline two\nline three\n"))
      ;; From a chat, the buffer offered is the last one visited, not the chat.
      (switch-to-buffer notes)
      (switch-to-buffer chat)
      (with-current-buffer chat (should (eq (llmster--context-default) notes)))
      (with-current-buffer notes
        (should (eq (llmster--context-default) notes))
        (llmster-add-context (cons (progn (goto-char (point-min)) (line-beginning-position 2)) (line-beginning-position 3)) chat))
      (with-current-buffer chat
        (should (string-match-p "plan.txt (lines 2-2)" header-line-format))
        (llmster-test--send chat "echo:about it")
        (llmster-test--wait-reply chat)
        (let* ((message (car (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
               (item (car (alist-get 'context message))))
          (should (equal (alist-get 'name item) "plan.txt (lines 2-2)"))
          (should (string-match-p "\\`line two\n?\\'" (alist-get 'text item)))
          (should (equal (alist-get 'text message) "echo:about it")))
        ;; The title is what was typed, not the attached file's name.
        (should (equal (alist-get 'title (llmster-test--conversation chat)) "echo:about it"))
        ;; The transcript shows what was sent, as it does when reopened.
        (let ((sent "### You\necho:about it\n\n\\[context: plan.txt (lines 2-2)\\]"))
          (should (string-match-p sent (buffer-string)))
          (with-current-buffer (llmster-test--reopen chat)
            (should (string-match-p sent (buffer-string)))))))))

(ert-deftest llmster-test-deleting-an-open-conversation ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (other (llmster)))
      (llmster-test--send buffer "echo:to delete")
      (llmster-test--send other "echo:deleted elsewhere")
      (llmster-test--wait-reply buffer)
      (llmster-test--wait-reply other)
      ;; From the list: the open chat closes with it.
      (with-current-buffer (llmster-list-conversations)
        (goto-char (point-min))
        (search-forward "echo:to delete")
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (prompt) (should (string-match-p "open chat closes" prompt)) t)))
          (llmster-chats-delete)))
      (should-not (buffer-live-p buffer))
      ;; Elsewhere (the REPL): the next send says what happened, in the editor's words.
      (llmster-test--call "conversations/delete" 'id (buffer-local-value 'llmster--conversation-id other))
      (llmster-test--send other "echo:anyone?")
      (llmster-test--wait-reply other)
      (with-current-buffer other
        (should (string-match-p (regexp-quote "[error: this conversation is no longer in the library (deleted?); M-x llmster starts a new chat]")
                                (buffer-string)))
        (should-not (string-match-p "/chats" (buffer-string)))))))

(ert-deftest llmster-test-the-menu-fits-80-columns ()
  ;; Each row of columns: the widest "KEY DESCRIPTION" of each column, with transient's padding.
  (dolist (row (get 'llmster-menu 'transient--layout))
    (let ((width (cl-loop for column across (vconcat (aref row 3))
                          sum (+ 4 (cl-loop for suffix in (aref column 3)
                                            maximize (+ 1 (length (plist-get (nth 2 suffix) :key))
                                                        (length (plist-get (nth 2 suffix) :description))))))))
      (should (<= width 80)))))

(ert-deftest llmster-test-rename-pin-and-move-from-the-chat-and-the-list-follow-the-open-buffer ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:first name")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (llmster-chats-rename "From the chat")
        (should (equal (buffer-name) "*llmster: From the chat*"))
        (llmster-chats-toggle-pin)
        (llmster-chats-move "Work")
        (let ((conversation (llmster-test--conversation buffer)))
          (should (eq (alist-get 'pinned conversation) t))
          (should (equal (alist-get 'folderPath conversation) "Work"))))
      (with-current-buffer (llmster-list-conversations)
        (goto-char (point-min))
        (search-forward "From the chat")
        (llmster-chats-rename "From the list"))
      (should (equal (buffer-name buffer) "*llmster: From the list*")))))

(ert-deftest llmster-test-a-cancelled-reply-leaves-the-context-use-shown ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:one two three")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (llmster-test--wait (lambda () (string-match-p "ctx [0-9.k]+/[0-9.k]+" (or llmster--usage ""))))
        (let ((before llmster--usage))
          (llmster-test--send buffer "[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
          (llmster-test--wait (lambda () (save-excursion (goto-char (point-max)) (search-backward "\nalpha" nil t))))
          (llmster-cancel)
          (llmster-test--wait-reply buffer)
          (should (string-match-p "\\[incomplete: " (buffer-string)))
          (should (equal llmster--usage before)))))))

(ert-deftest llmster-test-export-import-and-backup-from-emacs ()
  (llmster-test--with-llmster
    (let ((buffer (llmster))
          (file (expand-file-name "chat.llmster" home))
          (backup (expand-file-name "all.llmster-backup" home)))
      (llmster-test--send buffer "echo:take me along")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer (should (equal (llmster-export file) file)))
      (should (file-exists-p file))
      ;; The library still holds the exported conversation: opening it is offered, or a copy.
      (cl-letf (((symbol-function 'y-or-n-p) (lambda (_) nil)))
        (should (eq (llmster-import file) buffer)))
      (let ((imported (cl-letf (((symbol-function 'y-or-n-p) (lambda (_) t))) (llmster-import file))))
        (should-not (eq imported buffer))
        (should (string-match-p "### Assistant\ntake me along" (with-current-buffer imported (buffer-string)))))
      (should (= 2 (length (alist-get 'conversations (llmster-test--call "conversations/list")))))
      (should (= 2 (alist-get 'conversations (alist-get 'statistics (llmster-backup backup "")))))
      (should (file-exists-p backup)))))

(ert-deftest llmster-test-the-health-check-reports-the-setup ()
  (llmster-test--with-llmster
    (let ((lines (llmster-doctor)))
      (should (cl-some (lambda (line) (string-match-p "^OK +executable: .*/llmster$" line)) lines))
      (should (cl-some (lambda (line) (string-match-p "^OK +llmster rpc .* speaks protocol 1$" line)) lines))
      (should (cl-some (lambda (line) (string-match-p (concat "^OK +LM Studio answers at " (regexp-quote llmster-test--server)
                                                              ": [0-9]+ models, 1 loaded$")
                                                      line))
                       lines))
      (should (equal (with-current-buffer "*llmster doctor*" (buffer-string)) (concat (string-join lines "\n") "\n"))))
    (let ((llmster-program "no-such-llmster"))
      (when (llmster--live-p) (delete-process llmster--process))
      (should (string-match-p "^ERROR +no-such-llmster is not on the exec-path" (car (llmster-doctor)))))))

(ert-deftest llmster-test-model-annotations-line-up-and-long-titles-leave-room-in-the-mode-line ()
  (llmster-test--with-llmster
    (with-current-buffer (llmster)
      (let (annotated)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt table &rest _)
                     (let ((annotate (alist-get 'annotation-function (cdr (funcall table "" nil 'metadata)))))
                       (setq annotated (mapcar (lambda (key) (concat key (funcall annotate key))) (all-completions "" table))))
                     "acme/tiny-1b")))
          (llmster-select-model))
        ;; The sizes (right-aligned) end in the same column on every line.
        (should (> (length annotated) 2))
        (should (= 1 (length (delete-dups (mapcar (lambda (line) (string-match "[0-9.]+ [MG]B" line) (match-end 0)) annotated))))))
      (llmster--name-buffer (make-string 100 ?t))
      (should (<= (length (buffer-name)) 52)))))

(ert-deftest llmster-test-integrations-are-turned-on-and-off-for-a-chat ()
  (llmster-test--with-llmster
    (llmster-test--write-config "integration.docs = https://docs.example.com/mcp" "integration.playwright = mcp/playwright")
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:plain")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (let (offered)
          (cl-letf (((symbol-function 'completing-read-multiple)
                     (lambda (_prompt table &rest _) (setq offered table) '("docs"))))
            (call-interactively #'llmster-set-integrations))
          (should (equal offered '("docs" "playwright"))))
        (should (equal (alist-get 'integrations (llmster-test--conversation buffer)) '("docs")))
        (should (equal (llmster--integrations) '("docs")))
        (llmster-set-integrations nil)
        (should-not (alist-get 'integrations (llmster-test--conversation buffer)))
        (should-error (llmster-set-integrations '("nope")) :type 'user-error)))))

(ert-deftest llmster-test-markdown-sees-code-blocks-one-message-at-a-time ()
  (skip-unless (featurep 'markdown-mode))
  (with-temp-buffer
    (llmster-chat-mode)
    (insert "### You\nhi\n\n### Assistant\n```python\nx = 1\n```\nafter\n\n### Assistant\n```\nleft open\n\n### You\nplain text\n```\n")
    (syntax-propertize (point-max))
    (goto-char (point-min))
    (search-forward "x = 1")
    (should (markdown-code-block-at-pos (match-beginning 0)))
    (search-forward "after")
    (should-not (markdown-code-block-at-pos (match-beginning 0)))
    ;; A fence a reply left open does not run on into the next message (to close at its fence).
    (search-forward "plain text")
    (should-not (markdown-code-block-at-pos (match-beginning 0)))))

;;;; The scenarios both editors share (contrib/editor-scenarios.txt)

(ert-deftest llmster-test-think-tags-in-the-answer-are-folded-as-reasoning ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:think-tags]] echo:The answer")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (let ((fold (car (llmster--folds 'reasoning)))
              (reply (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))))
          (should fold)
          (should (> (length (alist-get 'reasoning reply)) 20))
          (should (equal (string-trim (buffer-substring-no-properties (overlay-start fold) (overlay-end fold)))
                         (alist-get 'reasoning reply)))
          (should (string-prefix-p "The answer" (buffer-substring-no-properties (overlay-end fold) (point-max))))
          (should-not (string-match-p "</?think>" (buffer-substring-no-properties (point-min) (point-max)))))))))

;;;; Issue 41: the turn's edges

(ert-deftest llmster-test-a-code-block-of-the-last-reply-is-copied-or-inserted ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (kill-ring nil))
      (llmster-test--send buffer "echo:First:\n```python\nx = 1\n```\nthen\n```sh\nls -l\n```\n")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (should (string-match-p "\\`ls -l\n?\\'" (llmster-copy-code-block 2)))
        (should (string-match-p "\\`ls -l\n?\\'" (car kill-ring)))
        (should-error (llmster-copy-code-block 3) :type 'user-error)
        ;; Without N, the block is chosen among the reply's.
        (cl-letf (((symbol-function 'completing-read) (lambda (_prompt table &rest _) (car table))))
          (should (string-match-p "\\`x = 1\n?\\'" (llmster-copy-code-block)))))
      (let ((chat (llmster-test--reopen buffer)))
        (with-temp-buffer
          (let ((target (current-buffer)))
            (insert "before ")
            (with-current-buffer chat (llmster-insert-code-block 1 target))
            (should (string-match-p "\\`before x = 1\n?\\'" (buffer-string)))))))))

(ert-deftest llmster-test-the-server-profile-is-switched-from-emacs ()
  (llmster-test--with-llmster
    (llmster-test--write-config (concat "server.sim = " (llmster-test--start-simulator)) "server.rig = http://127.0.0.1:9")
    (llmster--ensure-process)
    (let ((offered nil))
      (cl-letf (((symbol-function 'completing-read) (lambda (_prompt table &rest _) (setq offered table) "sim")))
        (call-interactively #'llmster-switch-server))
      (should (equal (sort (copy-sequence offered) #'string<) '("rig" "sim"))))
    (should (equal (alist-get 'currentProfile (llmster-test--call "servers/list")) "sim"))
    (llmster-switch-server "rig")
    (should (equal (alist-get 'currentProfile (llmster-test--call "servers/list")) "rig"))
    (should-error (llmster-switch-server "nowhere") :type 'user-error)))

(ert-deftest llmster-test-a-backup-password-is-asked-twice ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (backup (expand-file-name "all.llmster-backup" home)) answers)
      (llmster-test--send buffer "echo:keep me")
      (llmster-test--wait-reply buffer)
      (cl-letf (((symbol-function 'read-file-name) (lambda (&rest _) backup))
                ((symbol-function 'read-passwd) (lambda (&rest _) (pop answers))))
        ;; A mistyped confirmation backs up nothing.
        (setq answers '("correct horse" "correct hose"))
        (should-error (call-interactively #'llmster-backup) :type 'user-error)
        (should-not (file-exists-p backup))
        (setq answers '("correct horse" "correct horse"))
        (should (eq (alist-get 'encrypted (call-interactively #'llmster-backup)) t))
        (should (file-exists-p backup))
        (should-not answers)
        ;; No password: not asked again, not encrypted.
        (delete-file backup)
        (setq answers '(""))
        (should-not (eq (alist-get 'encrypted (call-interactively #'llmster-backup)) t))
        (should-not answers)))))

(ert-deftest llmster-test-control-characters-are-shown-as-visible-escapes ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:escape reasoning]] hi")
      (llmster-test--wait-reply buffer)
      (dolist (chat '(streamed reopened))
        (with-current-buffer (if (eq chat 'streamed) buffer (llmster-test--reopen buffer))
          (let ((text (buffer-substring-no-properties (point-min) (point-max))))
            (should-not (string-match-p llmster--control-regexp text))
            (should (string-match-p "\\^\\[\\]52;" text))
            (should (string-match-p "\\^\\[\\[2J" text))))))
    (should (equal (llmster--visible (concat "a\e[1m\a" (string #x9b) "b\r\n\t")) "a^[[1m^G^[[b\n\t"))))

(ert-deftest llmster-test-smaller-items-of-issue-41 ()
  ;; One line of output is "1 line".
  (with-temp-buffer
    (llmster--insert-tool (point) '((name . "date") (status . "succeeded") (output . "Tuesday\n")))
    (should (equal (overlay-get (car (llmster--folds 'output)) 'llmster-summary) "output: 1 line")))
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:a chat with a title long enough to fill its column and then some more")
      (llmster-test--wait-reply buffer)
      (llmster-chats-move "A folder/with a long path"))
    ;; The whole "Updated" column fits in 120 columns.
    (with-current-buffer (llmster-list-conversations)
      (goto-char (point-min))
      (should (re-search-forward "[0-9]\\{4\\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]" nil t))
      (should (<= (current-column) 120)))
    ;; A rewrite's diff numbers its hunk as the file's lines.
    (let ((source (generate-new-buffer "lines.txt")))
      (with-current-buffer source
        (insert "one\ntwo\nthree\nfour\nfive\nsix\n")
        (goto-char (point-min)) (forward-line 3)
        (llmster-rewrite (point) (progn (forward-line 2) (point)) "echo:```\nFOUR\nFIVE\n```"))
      (llmster-test--wait (lambda () (let ((diff (get-buffer "*llmster rewrite*")))
                                       (and diff (buffer-local-value 'llmster--rewrite diff)))))
      (with-current-buffer "*llmster rewrite*"
        (should (string-match-p "^@@ -4,2 \\+4,2 @@" (buffer-string)))
        (llmster-rewrite-reject))
      (kill-buffer source))))

(ert-deftest llmster-test-a-refused-send-is-not-drawn-as-sent ()
  (llmster-test--with-llmster
    (let* ((buffer (llmster)) (image (llmster-test--png (make-temp-file "llmster-image-" t)))
           (notes (get-buffer-create "plover.txt")))
      (with-current-buffer notes (erase-buffer) (insert "The secret word is plover.\n"))
      (llmster-test--send buffer "echo:first")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-attach-image image buffer)
        (llmster-add-context notes buffer)
        ;; acme/tiny-1b sees no images: the turn refuses the send before anything reaches the server.
        (llmster-test--send buffer "echo:img")
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:img"))
        (should (equal llmster--images (list image)))
        (should (equal (mapcar #'car llmster--context) '("plover.txt")))
        (should (string-match-p "Context: plover.txt; Images: dot.png" (format "%s" header-line-format)))
        (should (equal (mapcar (lambda (m) (alist-get 'text m))
                               (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))
                       '("echo:first" "first")))
        ;; Asking again answers the last message the library holds, which the buffer shows last.
        (llmster-regenerate)
        (llmster-test--wait-reply buffer)
        (should (equal (buffer-string) "### You\necho:first\n\n### Assistant\nfirst\n\n### You\necho:img"))
        (should (= 2 (length (alist-get 'alternatives (llmster--alternatives-of
                                                         (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))
                                                         nil)))))
        ;; Without the image, the same input goes with its context item.
        (setq llmster--images nil)
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### You\necho:img\n\n\\[context: plover.txt\\]\n\n### Assistant\nimg\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-a-dropped-reply-shows-its-reason-at-once ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "[[sim:drop-after=3]] echo:one two three four five six")
      (llmster-test--wait-reply buffer)
      (let* ((shown (with-current-buffer buffer (buffer-string)))
             (reply (car (last (alist-get 'messages (llmster-test--call "conversations/get" 'id (buffer-local-value 'llmster--conversation-id buffer)))))))
        (should (equal (alist-get 'status reply) "incomplete"))
        (should (> (length (alist-get 'error reply)) 0))
        (should (string-match-p (regexp-quote (format "[incomplete: %s]" (alist-get 'error reply))) shown))
        (should (equal shown (with-current-buffer (llmster-test--reopen buffer) (buffer-string))))))))

(defun llmster-test--open-and-reopened (buffer)
  "BUFFER's text and mode line, then the same of its conversation reopened: (OPEN . REOPENED)."
  (let ((open (with-current-buffer buffer (list (buffer-string) llmster--usage (mapcar (lambda (fold) (overlay-get fold 'llmster-summary)) (llmster--folds))))))
    (with-current-buffer (llmster-test--reopen buffer)
      (cons open (list (buffer-string) llmster--usage (mapcar (lambda (fold) (overlay-get fold 'llmster-summary)) (llmster--folds)))))))

(ert-deftest llmster-test-the-open-chat-reads-as-the-reopened-one ()
  (llmster-test--with-llmster
    (llmster-test--write-config "preset.shout.template = Say loudly: {{input}}")
    (let ((buffer (llmster)) (notes (get-buffer-create "plover.txt")))
      (with-current-buffer notes (erase-buffer) (insert "The secret word is plover.\n"))
      ;; Reasoning (its time is the engine's), a cancelled reply, a context item, a filled template.
      (llmster-test--send buffer "[[sim:reasoning]] echo:thought through")
      (llmster-test--wait-reply buffer)
      (llmster-test--send buffer "[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
      (with-current-buffer buffer
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-max)) (search-backward "\nalpha" nil t))))
        (llmster-cancel))
      (llmster-test--wait-reply buffer)
      (llmster-add-context notes buffer)
      (llmster-test--send buffer "echo:with notes")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer (llmster-apply-preset "shout"))
      (llmster-test--send buffer "echo:hello")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (llmster-test--wait (lambda () (string-match-p "Say loudly" (buffer-string)))))
      (pcase-let* ((`(,open . ,reopened) (llmster-test--open-and-reopened buffer))
                   (meter (alist-get 'label (alist-get 'contextMeter (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))
        (should (equal (car open) (car reopened)))
        (should (string-match-p "\\[incomplete: " (car open)))
        (should (string-match-p "\\[context: plover.txt\\]" (car open)))
        (should (equal (nth 2 open) (nth 2 reopened)))
        (should (string-match-p (regexp-quote meter) (nth 1 open)))
        (should (equal (nth 1 open) (nth 1 reopened)))))))

(ert-deftest llmster-test-after-a-send-point-stays-in-the-input-area ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (switch-to-buffer buffer)
        (llmster-test--send buffer "[[sim:stall=1]] echo:w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13")
        (should (>= (point) llmster--input-start))
        (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\nw1" nil t))))
        ;; Typing while the reply streams goes into the input area, never into the reply.
        (insert "hello")
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### Assistant\nw1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13\n\n### You\nhello\\'" (buffer-string)))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "hello"))))))

(ert-deftest llmster-test-undo-while-streaming-withdraws-the-exchange-from-the-library ()
  (llmster-test--with-llmster
    (llmster-test--write-config "preset.polite.template = {{input}}, please")
    (let ((buffer (llmster)))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (cl-flet ((texts () (mapcar (lambda (m) (alist-get 'text m))
                                    (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id)))))
          (llmster-test--send buffer "echo:one")
          (llmster-test--wait-reply buffer)
          (llmster-edit-last)
          (goto-char (point-max))
          (insert " edited")
          (llmster-send)
          (llmster-test--wait-reply buffer)
          (llmster-apply-preset "polite")
          (llmster-add-context (make-temp-file "llmster-notes-" nil ".txt" "the notes\n") buffer)
          (llmster-test--send-undoably "[[sim:stall=30]] echo:slow one two three four" "slow")
          (let ((last-command nil)) (undo))
          (should-not (llmster-streaming-p))
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max))
                         "[[sim:stall=30]] echo:slow one two three four"))
          ;; The template the send filled and the context item it took wait for the message again.
          (should (equal llmster--template-preset "polite"))
          (should (equal (length llmster--context) 1))
          ;; The library holds what the buffer shows.
          (should (equal (texts) '("echo:one edited" "one edited")))
          ;; Asking again answers the message shown last, and its answers and versions are there to choose.
          (llmster-regenerate)
          (llmster-test--wait-reply buffer)
          (should (equal (buffer-string) "### You\necho:one edited\n\n### Assistant\none edited\n\n### You\n[[sim:stall=30]] echo:slow one two three four"))
          (let ((messages (alist-get 'messages (llmster-test--call "conversations/get" 'id llmster--conversation-id))))
            (should (= 2 (length (alist-get 'alternatives (llmster--alternatives-of messages nil)))))
            (should (= 2 (length (alist-get 'alternatives (llmster--alternatives-of messages t))))))
          ;; The chat goes on.
          (delete-region llmster--input-start (point-max))
          (insert "echo:after")
          (llmster-send)
          (llmster-test--wait-reply buffer)
          ;; The template taken back filled it, and the context item taken back went with it (the message is drawn
          ;; again from the library once the reply ends).
          (llmster-test--wait (lambda () (string-match-p "### Assistant\none edited\n\n### You\necho:after, please\n\n\\[context: llmster-notes-[^]]+\\.txt]\n\n### Assistant\nafter, please\n\n### You\n\\'" (buffer-string))))
          (should-not llmster--context)
          (should (equal (texts) '("echo:one edited" "one edited" "echo:after, please" "after, please")))
          ;; Undo while an edit streams leaves the chat editing its last message again, shown as the library holds it.
          (llmster-edit-last)
          (delete-region llmster--input-start (point-max))
          (llmster-test--send-undoably "[[sim:stall=30]] echo:slow edit one two three" "slow")
          (let ((last-command nil)) (undo))
          (should-not (llmster-streaming-p))
          (should llmster--edit-next)
          (should (equal (texts) '("echo:one edited" "one edited" "echo:after, please" "after, please")))
          (llmster-test--wait (lambda () (string-match-p "### You\necho:after, please\n\n\\[context: llmster-notes-[^]]+\\.txt]\n\n### Assistant\nafter, please\n" (buffer-string))))
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max))
                         "[[sim:stall=30]] echo:slow edit one two three"))
          (delete-region llmster--input-start (point-max))
          (insert "echo:after edited")
          (llmster-send)
          (llmster-test--wait-reply buffer)
          (should (equal (texts) '("echo:one edited" "one edited" "echo:after edited" "after edited"))))))))

(ert-deftest llmster-test-what-undo-while-streaming-did-is-said-after-undo-says-undo ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (said nil))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send-undoably "[[sim:stall=30]] echo:alpha beta gamma delta" "alpha")
        (cl-letf (((symbol-function 'message)
                   (lambda (format &rest args) (when format (push (apply #'format-message format args) said)))))
          (let ((last-command nil)) (undo))
          ;; As after the command: the timers run.
          (llmster-test--wait (lambda () (string-match-p "undo took the message back" (car said)))))
        (should (member "Undo" said))))))

(ert-deftest llmster-test-an-undo-the-library-refuses-says-so ()
  ;; A fake answer for chat/withdraw alone: llmster refuses it only in races a test cannot stage.
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (said nil))
      (with-current-buffer buffer
        (buffer-enable-undo)
        (llmster-test--send buffer "echo:one")
        (llmster-test--wait-reply buffer)
        (llmster-test--send-undoably "[[sim:stall=30]] echo:slow one two three four" "slow")
        (let ((call (symbol-function 'llmster--call)))
          (cl-letf (((symbol-function 'llmster--call)
                     (lambda (method &rest args)
                       (if (equal method "chat/withdraw")
                           '(nil (message . "refused for the test"))
                         (apply call method args))))
                    ((symbol-function 'message)
                     (lambda (format &rest args) (when format (push (apply #'format format args) said)))))
            (let ((last-command nil)) (undo))
            ;; Said once the command ends, after undo's own "Undo".
            (llmster-test--wait (lambda () (member "llmster: the library keeps the exchange: refused for the test" said)))))
        (should-not (cl-some (lambda (line) (string-match-p "exchange withdrawn" line)) said))))))

;; A process that reads and never answers stands in for an llmster whose send got stuck before its first event.
(ert-deftest llmster-test-an-undo-whose-send-never-answered-says-the-library-may-keep-it ()
  (let* ((llmster--process (make-process :name "silent llmster" :command '("cat") :connection-type 'pipe :noquery t))
         (llmster-request-timeout 0.3)
         (said nil))
    (unwind-protect
        (cl-letf (((symbol-function 'message)
                   (lambda (format &rest args) (when format (push (apply #'format format args) said)))))
          (should-not (llmster--withdraw (llmster--make-reply)))
          (llmster-test--wait (lambda () said))
          (should (equal said '("llmster: the send got no answer, so the library may keep its exchange"))))
      (delete-process llmster--process))))

(ert-deftest llmster-test-a-chat-changed-elsewhere-is-drawn-again ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (shown nil))
      (llmster-test--send buffer "echo:from emacs")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert "typed here")
        ;; Another process (`llmster ask -c') continues the conversation.
        (should (zerop (call-process llmster-program nil nil nil "ask" (concat "--continue=" llmster--conversation-id)
                                     "echo:from elsewhere")))
        (llmster-test--wait (lambda () (string-match-p "### Assistant\nfrom elsewhere\n" (buffer-string))))
        (should (equal (buffer-string) "### You\necho:from emacs\n\n### Assistant\nfrom emacs\n\n### You\necho:from elsewhere\n\n### Assistant\nfrom elsewhere\n\n### You\ntyped here"))
        ;; While a reply streams, the chat says so, and draws the conversation again after it.
        (delete-region llmster--input-start (point-max))
        (cl-letf* ((message-function (symbol-function 'message))
                   ((symbol-function 'message) (lambda (format &rest args)
                                                 (when format (push (apply #'format-message format args) shown))
                                                 (apply message-function format args))))
          (llmster-test--send buffer "[[sim:stall=1]] echo:one two three four five")
          (llmster-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "### Assistant\none" nil t))))
          (llmster--on-notification "conversation/changed" `((conversationId . ,llmster--conversation-id)))
          (should (cl-find-if (lambda (line) (string-match-p "changed elsewhere; it is drawn again when this reply ends" line)) shown))
          (should (llmster-streaming-p))
          (llmster-test--wait-reply buffer)
          (llmster-test--wait (lambda () (cl-find-if (lambda (line) (string-match-p "drawn again from the library" line)) shown))))
        (should (string-match-p "### Assistant\none two three four five\n\n### You\n\\'" (buffer-string)))))))

(ert-deftest llmster-test-a-send-from-elsewhere-is-drawn-once ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (redraws 0) (said nil))
      (llmster-test--send buffer "echo:from emacs")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (cl-letf* ((redraw (symbol-function 'llmster--redraw))
                   ((symbol-function 'llmster--redraw) (lambda (&rest args) (cl-incf redraws) (apply redraw args)))
                   ((symbol-function 'message) (lambda (format &rest args)
                                                 (when format (push (apply #'format-message format args) said)))))
          ;; A reply streaming elsewhere for some seconds: its saves come as several notices.
          (make-process :name "ask" :noquery t :buffer nil
                        :command (list llmster-program "ask" (concat "--continue=" llmster--conversation-id)
                                       "[[sim:rate=6]] echo:a b c d e f g h i j k l m n o p q r"))
          (llmster-test--wait (lambda () (string-match-p "### Assistant\na b c d e f g h i j k l m n o p q r\n\n### You\n\\'"
                                                         (buffer-string))))
          (let ((deadline (+ (float-time) 2))) (while (< (float-time) deadline) (accept-process-output nil 0.05))))
        (should (= redraws 1))
        (should (= 1 (cl-count-if (lambda (line) (string-match-p "drawn again from the library" line)) said)))))))

(ert-deftest llmster-test-a-draft-sent-from-elsewhere-leaves-the-input ()
  (llmster-test--with-llmster
    (pcase-let ((`(,buffer . ,id) (llmster-test--chat-with-draft "echo:shared draft")))
      (cl-flet ((send-elsewhere (text seen)
                  ;; Another client sends its copy of the draft, which leaves the library.
                  (llmster-test--call "drafts/set" 'conversationId id 'text "")
                  (should (zerop (call-process llmster-program nil nil nil "ask" (concat "--continue=" id) text)))
                  (llmster-test--wait (lambda () (string-match-p (concat "### Assistant\n" seen "\n\n### You\n")
                                                                 (with-current-buffer buffer (buffer-string)))))))
        (kill-buffer buffer)
        (setq buffer (llmster id))
        (with-current-buffer buffer
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:shared draft"))
          (send-elsewhere "echo:shared draft" "shared draft")
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) ""))
          ;; Text the user changed since the draft was loaded stays.
          (insert "echo:mine")
          (kill-buffer buffer)
          (setq buffer (llmster id))
          (goto-char (point-max))
          (insert " too")
          (send-elsewhere "echo:theirs" "theirs")
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:mine too")))))))

;; Two faces on one chat: the draft an input showed, emptied here, does not wipe a newer one saved elsewhere.
(ert-deftest llmster-test-an-emptied-input-keeps-a-newer-draft-from-elsewhere ()
  (llmster-test--with-llmster
    (pcase-let ((`(,buffer . ,id) (llmster-test--chat-with-draft "echo:saved here P5")))
      (cl-flet ((draft () (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id))))
        (run-hooks 'kill-emacs-hook)
        (should (equal (draft) "echo:saved here P5"))
        (with-current-buffer buffer (delete-region llmster--input-start (point-max)))
        (llmster-test--call "drafts/set" 'conversationId id 'text "newer draft P6")
        (run-hooks 'kill-emacs-hook)
        (should (equal (draft) "newer draft P6"))))))

;; QA: an empty input wiped another client's draft as the chat was closed (C-x k or C-x C-c).
(ert-deftest llmster-test-closing-a-chat-keeps-a-draft-another-client-saved ()
  (llmster-test--with-llmster
    (pcase-let ((`(,buffer . ,id) (llmster-test--chat-with-draft "")) (sets nil))
      (cl-flet ((draft () (alist-get 'text (llmster-test--call "drafts/get" 'conversationId id)))
                (save-elsewhere (text) (llmster-test--call "drafts/set" 'conversationId id 'text text))
                (input () (with-current-buffer buffer (buffer-substring-no-properties llmster--input-start (point-max)))))
        (cl-flet ((kill (buffer)
                    ;; C-x k asks llmster to save the draft without waiting: no drafts/set leaves at all.
                    (let ((spy (lambda (method params &rest _)
                                 (when (equal method "drafts/set") (push (alist-get 'text params) sets)))))
                      (advice-add 'llmster--request :before spy)
                      (unwind-protect (kill-buffer buffer) (advice-remove 'llmster--request spy)))))
          ;; A new chat's empty input, closed with C-x k.
          (save-elsewhere "precious draft P1")
          (kill buffer)
          (should-not sets)
          (should (equal (draft) "precious draft P1"))
          ;; An input left as the draft filled it, then C-x C-c after another client saved a newer one.
          (setq buffer (llmster id))
          (should (equal (input) "precious draft P1"))
          (save-elsewhere "newer draft P2")
          (run-hooks 'kill-emacs-hook)
          (should (equal (draft) "newer draft P2"))
          (kill buffer)
          (should-not sets)
          ;; An empty input the chat was drawn again around (another client sent a message, keeping its draft).
          (save-elsewhere "")
          (setq buffer (llmster id))
          (should (equal (input) ""))
          (save-elsewhere "precious draft P3")
          (should (zerop (call-process llmster-program nil nil nil "ask" (concat "--continue=" id) "echo:theirs")))
          (llmster-test--wait (lambda () (string-match-p "### Assistant\ntheirs\n\n### You\n"
                                                         (with-current-buffer buffer (buffer-string)))))
          (should (equal (input) ""))
          (kill buffer)
          (should-not sets)
          (should (equal (draft) "precious draft P3"))
          ;; A draft this chat showed and sent leaves the library, and the emptied input keeps no claim on it.
          (save-elsewhere "echo:shown")
          (setq buffer (llmster id))
          (with-current-buffer buffer (llmster-send))
          (llmster-test--wait-reply buffer)
          (should (equal (draft) ""))
          (save-elsewhere "precious draft P4")
          (run-hooks 'kill-emacs-hook)
          (should (equal (draft) "precious draft P4"))
          ;; What the user typed is still saved.
          (with-current-buffer buffer (goto-char (point-max)) (insert "typed here"))
          (kill buffer)
          (should (equal sets '("typed here")))
          (llmster-test--wait (lambda () (equal (draft) "typed here"))))))))

(ert-deftest llmster-test-an-edit-begun-before-another-client-sent-is-refused ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (shown nil))
      (llmster-test--send buffer "echo:one")
      (llmster-test--wait-reply buffer)
      (with-current-buffer buffer
        (let ((id llmster--conversation-id))
          (llmster-edit-last)
          (delete-region llmster--input-start (point-max))
          (goto-char (point-max))
          (insert "echo:one edited")
          (should (zerop (call-process llmster-program nil nil nil "ask" (concat "--continue=" id)
                                       "echo:two from elsewhere")))
          (llmster-test--wait (lambda () (string-match-p "two from elsewhere" (buffer-string))))
          (cl-letf (((symbol-function 'message)
                     (lambda (format &rest args) (when format (push (apply #'format-message format args) shown)))))
            (llmster-send)
            (llmster-test--wait-reply buffer)
            (llmster-test--wait (lambda () (seq-some (lambda (m) (string-match-p "another client sent to it" m)) shown))))
          ;; Nothing was replaced: the library holds both exchanges, and the edit waits in the input area.
          (should (equal (mapcar (lambda (m) (alist-get 'text m))
                                 (alist-get 'messages (llmster-test--call "conversations/get" 'id id)))
                         '("echo:one" "one" "echo:two from elsewhere" "two from elsewhere")))
          (llmster-test--wait (lambda () (string-match-p "### Assistant\ntwo from elsewhere" (buffer-string))))
          (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "echo:one edited")))))))

(ert-deftest llmster-test-a-streaming-reply-is-scanned-for-syntax-after-it-ends ()
  (skip-unless (featurep 'markdown-mode))
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (scanned 0))
      (cl-letf* ((propertize (symbol-function 'markdown-syntax-propertize))
                 ((symbol-function 'markdown-syntax-propertize)
                  (lambda (start end)
                    (when (llmster-streaming-p buffer) (setq scanned (+ scanned (- end start))))
                    (funcall propertize start end)))
                 (apply-event (symbol-function 'llmster--apply-event))
                 ((symbol-function 'llmster--apply-event)
                  (lambda (buffer reply event)
                    (funcall apply-event buffer reply event)
                    ;; What redisplay of a window on the reply's end asks for.
                    (with-current-buffer buffer (syntax-propertize (point-max))))))
        (llmster-test--send buffer "echo:```python\nx = 1\n```\nafter the code")
        (llmster-test--wait-reply buffer)
        (llmster-test--send buffer "[[sim:large=100000]] go")
        (llmster-test--wait-reply buffer))
      ;; Only the messages sent and the input area were scanned while replies streamed, not the replies.
      (should (< scanned 5000))
      (with-current-buffer buffer
        (llmster-test--wait (lambda () (null llmster--syntax-scanned)))
        (goto-char (point-min))
        (search-forward "### Assistant\n```python\nx = 1")
        (should (markdown-code-block-at-pos (match-end 0)))
        (search-forward "after the code")
        (should-not (markdown-code-block-at-pos (match-beginning 0)))))))

(defconst llmster-test--scenarios
  '((undo-while-streaming . llmster-test-undo-while-streaming-withdraws-the-exchange-from-the-library)
    (undo-after-streaming . llmster-test-undo-works-after-typing-while-a-reply-streams)
    (cursor-after-regenerate . llmster-test-point-stays-in-the-input-after-regenerate)
    (fresh-context . llmster-test-lost-server-context-offers-a-fresh-one)
    (fresh-context-declined . llmster-test-a-declined-fresh-context-leaves-the-message-in-the-input)
    (failed-send . llmster-test-a-failed-send-puts-the-message-back)
    (drafts-on-exit . llmster-test-drafts-are-kept-when-emacs-exits)
    (delete-open-chat . llmster-test-deleting-an-open-conversation)
    (rewrite-line-ends . llmster-test-a-rewrite-without-a-final-newline-keeps-the-lines-apart)
    (model-before-first-message . llmster-test-a-model-chosen-before-the-first-message-follows-the-load-policy)
    (config-reload . llmster-test-presets-added-while-llmster-runs-are-seen)
    (edit-last . llmster-test-edit-last-asks-before-replacing-typed-text-and-can-be-left)
    (recap . llmster-test-a-lost-context-can-continue-with-a-recap)
    (fork . llmster-test-fork-opens-a-new-conversation-from-a-reply)
    (image . llmster-test-an-image-goes-with-the-next-message)
    (dry-run . llmster-test-the-request-can-be-seen-before-it-is-sent)
    (refused-send . llmster-test-a-refused-send-is-not-drawn-as-sent)
    (range-into-chat . llmster-test-a-region-goes-after-the-draft-and-not-into-an-edit)
    (choose-model . llmster-test-a-chat-without-a-model-offers-the-servers-models)
    (failed-regenerate-or-edit . llmster-test-a-failed-regenerate-or-edit-shows-the-exchange-the-library-kept)
    (cursor-after-send . llmster-test-after-a-send-point-stays-in-the-input-area)
    (dropped-reply-reason . llmster-test-a-dropped-reply-shows-its-reason-at-once)
    (open-equals-reopened . llmster-test-the-open-chat-reads-as-the-reopened-one)
    (copy-code-block . llmster-test-a-code-block-of-the-last-reply-is-copied-or-inserted)
    (server-switch . llmster-test-the-server-profile-is-switched-from-emacs)
    (encrypted-backup . llmster-test-a-backup-password-is-asked-twice)
    (control-characters . llmster-test-control-characters-are-shown-as-visible-escapes)
    (think-tags . llmster-test-think-tags-in-the-answer-are-folded-as-reasoning)
    (changed-elsewhere . llmster-test-a-chat-changed-elsewhere-is-drawn-again)
    (progress-ticks . llmster-test-prompt-progress-ticks-in-the-mode-and-header-lines)
    (overflow-offer . llmster-test-a-message-that-would-fill-the-context-offers-a-larger-one)
    (lmstudio-import . llmster-test-lm-studio-chats-are-previewed-and-imported-once))
  "Each shared scenario's slug and this suite's test of it.")

(ert-deftest llmster-test-a-reopened-chat-is-scanned-for-code-blocks-after-it-is-shown ()
  (skip-unless (featurep 'markdown-mode))
  (llmster-test--with-llmster
    (let ((buffer (llmster)))
      (llmster-test--send buffer "echo:```python\nx = 1\n```\nafter the code")
      (llmster-test--wait-reply buffer)
      (llmster-test--send buffer "[[sim:large=20000]] go")
      (llmster-test--wait-reply buffer)
      (with-current-buffer (llmster-test--reopen buffer)
        ;; Shown without scanning the transcript; scanned in the background, then as before.
        (should llmster--syntax-scanned)
        (llmster-test--wait (lambda () (null llmster--syntax-scanned)))
        (goto-char (point-min))
        (search-forward "### Assistant\n```python\nx = 1")
        (should (markdown-code-block-at-pos (match-end 0)))
        (search-forward "after the code")
        (should-not (markdown-code-block-at-pos (match-beginning 0)))
        ;; The input area is scanned as it is typed in, as before.
        (goto-char (point-max))
        (insert "```\ncode typed\n```\n")
        (syntax-propertize (point-max))
        (search-backward "code typed")
        (should (markdown-code-block-at-pos (point)))))))

(defun llmster-test--png (directory)
  "A file in DIRECTORY that llmster takes for a PNG image; return its name."
  (let ((file (expand-file-name "dot.png" directory)))
    (let ((coding-system-for-write 'binary))
      (write-region (concat (unibyte-string #x89 ?P ?N ?G #x0d #x0a #x1a #x0a) (make-string 24 0)) nil file nil 'silent))
    file))

(ert-deftest llmster-test-an-image-goes-with-the-next-message ()
  (llmster-test--with-llmster
    (let* ((buffer (llmster)) (image (llmster-test--png (make-temp-file "llmster-image-" t))))
      (with-current-buffer buffer
        (llmster--select-model "acme/vision-7b" nil)
        ;; A send while the selection loads the model races it (both apply the load policy): wait.
        (llmster-test--wait (lambda () (equal llmster--usage " [acme/vision-7b]")))
        (setq llmster--model "acme/vision-7b")
        (llmster-add-context image buffer)
        (should (string-match-p "Images: dot.png" (format "%s" header-line-format)))
        (should-not llmster--context)
        (llmster-test--send buffer "What is in it?")
        (llmster-test--wait-reply buffer)
        (should (string-match-p "### You\nWhat is in it\\?\n\n\\[image: dot.png\\]\n\n### Assistant\nI can see 1 image in your message\\." (buffer-string)))
        ;; Sent once: the next message goes without it.
        (should-not llmster--images)
        (should-not header-line-format)
        ;; A model that sees no images: the message comes back, and the image stays attached.
        (setq llmster--model "acme/tiny-1b")
        (llmster-attach-image image buffer)
        (let ((shown nil))
          (cl-letf (((symbol-function 'message) (lambda (format &rest args) (push (apply #'format-message format args) shown))))
            (llmster-test--send buffer "And now?")
            (llmster-test--wait-reply buffer))
          (should (cl-find-if (lambda (line) (string-match-p "acme/tiny-1b.*back in the input area" line)) shown)))
        (should (equal (buffer-substring-no-properties llmster--input-start (point-max)) "And now?"))
        (should-not (string-match-p "\\[error" (buffer-string)))
        (should (equal llmster--images (list image))))
      ;; Reopened, the chat lists the image as the open one did.
      (with-current-buffer (llmster-test--reopen buffer)
        (should (string-match-p "### You\nWhat is in it\\?\n\n\\[image: dot.png\\]\n\n### Assistant" (buffer-string)))))))

(ert-deftest llmster-test-the-request-can-be-seen-before-it-is-sent ()
  (llmster-test--with-llmster
    (let ((buffer (llmster)) (source (generate-new-buffer "notes.txt")))
      (with-current-buffer source (insert "remember this"))
      (with-current-buffer buffer
        (llmster-set-system-prompt "Be brief.")
        (llmster-add-context source buffer)
        (goto-char (point-max))
        (insert "echo:first")
        (with-current-buffer (llmster-preview)
          (should (string-match-p "\\`POST http://[^\n]+/api/v1/chat\n\n{" (buffer-string)))
          (should (string-match-p "\"system_prompt\" : \"Be brief.\"" (buffer-string)))
          (should (string-match-p "remember this" (buffer-string)))
          (should (string-match-p "echo:first" (buffer-string))))
        ;; Nothing was sent or saved, and the input and its context are as they were.
        (should-not llmster--conversation-id)
        (should (equal (mapcar #'car llmster--context) (list (buffer-name source))))
        (should (string-suffix-p "### You\necho:first" (buffer-string)))
        (llmster-send)
        (llmster-test--wait-reply buffer)
        (goto-char (point-max))
        (insert "echo:second")
        (with-current-buffer (llmster-preview)
          (should (string-match-p "\"previous_response_id\" : \"" (buffer-string)))
          (should-not (string-match-p "system_prompt" (buffer-string)))))
      (kill-buffer source))))

(ert-deftest llmster-test-every-shared-editor-scenario-has-a-test-here ()
  (let ((file (expand-file-name "../../editor-scenarios.txt" llmster-test--directory))
        (missing nil))
    (with-temp-buffer
      (insert-file-contents file)
      (while (re-search-forward "^\\([a-z-]+\\):" nil t)
        (let ((test (alist-get (intern (match-string 1)) llmster-test--scenarios)))
          (unless (and test (ert-test-boundp test)) (push (match-string 1) missing)))))
    (should-not missing)))

;;;; Packaging

(ert-deftest llmster-test-package-is-checkdoc-clean ()
  (let ((problems nil))
    (cl-letf (((symbol-function 'display-warning) (lambda (_type message &rest _) (push message problems))))
      (mapc #'checkdoc-file llmster-test--sources))
    (should-not problems)))

(ert-deftest llmster-test-package-byte-compiles-without-warnings ()
  ;; Each file on its own, in a fresh Emacs that has only the package's directory on its load-path:
  ;; a file that uses another's function without requiring or declaring it fails here.
  (should (> (length llmster-test--sources) 5))
  (dolist (source llmster-test--sources)
    (let ((target (make-temp-file "llmster-" nil ".elc")))
      (unwind-protect
          (with-temp-buffer
            (let ((status (call-process
                           (expand-file-name invocation-name invocation-directory) nil t nil
                           "--batch" "-Q" "-L" (file-name-directory source)
                           ;; markdown-mode, when this Emacs has it, as a user's would.
                           "--eval" (format "(progn (setq load-path (append load-path '%S)) (setq byte-compile-error-on-warn t byte-compile-dest-file-function (lambda (_) %S)))"
                                            (cl-remove-if-not (lambda (dir) (string-match-p "markdown-mode" dir)) load-path) target)
                           "-f" "batch-byte-compile" source)))
              (should (equal (list source status (buffer-string)) (list source 0 "")))))
        (delete-file target)))))

(ert-deftest llmster-test-package-is-package-lint-clean ()
  (let ((dir (car (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/package-lint-*"))))
    (unless dir (ert-skip "package-lint is not installed (make test-deps installs elpa-package-lint)"))
    (add-to-list 'load-path dir)
    (require 'package-lint)
    (dolist (source llmster-test--sources)
      (with-temp-buffer
        (insert-file-contents source)
        (setq buffer-file-name source)
        (emacs-lisp-mode)
        (unwind-protect
            (let ((package-lint-main-file llmster-test--source))
              ;; Debian's package-lint 0.16 predates Emacs 28 and calls every 28.x unreleased.
              (should (equal (list source nil)
                             (list source (cl-remove-if (lambda (problem) (string-match-p "uninstallable in all released Emacs" (nth 3 problem)))
                                                        (package-lint-buffer))))))
          (set-buffer-modified-p nil)
          (setq buffer-file-name nil))))))

(ert-deftest llmster-test-package-installs-with-package-el-and-autoloads-its-commands ()
  ;; The directory as `make install' fills site-lisp/llmster: the package's files, no tests.
  (let* ((package-user-dir (make-temp-file "llmster-elpa-" t))
         (source-dir (make-temp-file "llmster-source-" t))
         (package-gnupghome-dir package-user-dir)
         (package-check-signature nil))
    (unwind-protect
        (progn
          (dolist (source llmster-test--sources) (copy-file source (file-name-as-directory source-dir)))
          (package-install-file source-dir)
          (let* ((dir (car (file-expand-wildcards (expand-file-name "llmster-*" package-user-dir))))
                 (autoloads (with-temp-buffer
                              (insert-file-contents (expand-file-name "llmster-autoloads.el" dir))
                              (buffer-string))))
            (should (string-match-p "llmster-0\\.[0-9]" dir))
            (dolist (source llmster-test--sources)
              (should (file-exists-p (expand-file-name (concat (file-name-base source) ".elc") dir))))
            (dolist (command '(llmster llmster-menu llmster-send-region llmster-rewrite llmster-add-context llmster-search
                                       llmster-search-list llmster-list-conversations llmster-new-chat-with-preset
                                       llmster-import llmster-backup llmster-doctor))
              (should (string-match-p (format "[(']%s\\_>" (regexp-quote (symbol-name command))) autoloads)))))
      ;; Installing loaded the installed copies: the suite goes on with the files under test.
      (dolist (source llmster-test--sources) (load source nil t))
      (delete-directory package-user-dir t)
      (delete-directory source-dir t))))

(ert-deftest llmster-test-only-the-menu-needs-transient ()
  ;; A fresh Emacs loads the package with every command but the menu's, and transient stays unloaded.
  (with-temp-buffer
    (should (equal 0 (call-process (expand-file-name invocation-name invocation-directory) nil t nil
                                   "--batch" "-Q" "-L" (file-name-directory llmster-test--source)
                                   "--eval" "(progn (require 'llmster) (require 'llmster-context) (require 'llmster-rewrite)
                                               (require 'llmster-library)
                                               (princ (format \"%s %s\" (featurep 'transient) (commandp 'llmster-menu))))")))
    (should (equal (buffer-string) "nil t"))))

(ert-deftest llmster-test-default-keys-leave-gptel-and-the-user-alone ()
  ;; C-c RET (C-c C-m in a terminal) is gptel's send key; C-c LETTER is the user's.
  (should-not (lookup-key llmster-chat-mode-map (kbd "C-c RET")))
  (map-keymap (lambda (key _binding)
                (when (eq key ?\C-c)
                  (map-keymap (lambda (second _)
                                (should-not (and (characterp second) (<= ?a (downcase second) ?z))))
                              (lookup-key llmster-chat-mode-map (kbd "C-c")))))
              llmster-chat-mode-map))

;;; llmster-test.el ends here
