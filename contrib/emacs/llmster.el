;;; llmster.el --- Chat with LM Studio models through llmster  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/llmster/llmster

;;; Commentary:

;; A front end for `llmster rpc' (see llmster-rpc(7)): the same conversations, library and
;; models as the llmster REPL, from Emacs.  Built-in libraries only.
;;
;;   M-x llmster                 open a chat buffer (a new conversation)
;;   C-c C-c                     send what is below the last "### You" line
;;   C-c C-k                     cancel the reply being streamed (what arrived is kept)
;;   C-c C-m                     choose the model (with size, loaded state and capabilities)
;;   C-c C-r                     show or fold the reasoning
;;   M-x llmster-send-region     send the region to a chat buffer
;;   M-x llmster-list-conversations   the library: RET open, r rename, m move, p pin, d delete, g refresh

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)
(require 'tabulated-list)
(require 'markdown-mode nil t)

(defgroup llmster nil
  "Chat with LM Studio models through llmster."
  :group 'tools
  :prefix "llmster-")

(defcustom llmster-program "llmster"
  "The llmster executable."
  :type 'string)

(defcustom llmster-program-arguments nil
  "Global options put before `rpc', e.g. (\"--server\" \"http://host:1234\")."
  :type '(repeat string))

(defcustom llmster-coalesce-milliseconds 50
  "How often, at most, the server sends streamed text."
  :type 'integer)

(defcustom llmster-request-timeout 60
  "Seconds to wait for a synchronous answer from llmster."
  :type 'number)

(defface llmster-reasoning-face '((t :inherit shadow))
  "Face of the model's reasoning.")

(defface llmster-heading-face '((t :inherit bold))
  "Face of the \"### You\" and \"### Assistant\" lines.")

(defvar llmster--process nil "The running `llmster rpc' process.")
(defvar llmster--next-id 0 "The id of the last request.")
(defvar llmster--callbacks (make-hash-table :test 'eql)
  "Request id to a function of (RESULT ERROR).")
(defvar llmster--event-handlers (make-hash-table :test 'eql)
  "Request id to a function of one `chat/event' params alist.")

;;;; JSON

(defun llmster--json-parse (string)
  "Parse STRING as JSON.
Objects become alists with symbol keys, arrays lists, null nil."
  (if (fboundp 'json-parse-string)
      (json-parse-string string :object-type 'alist :array-type 'list :null-object nil :false-object :false)
    (let ((json-object-type 'alist) (json-array-type 'list) (json-key-type 'symbol)
          (json-false :false) (json-null nil))
      (json-read-from-string string))))

(defun llmster--json-encode (value)
  "Compact JSON text of VALUE (alists with symbol keys; `:false' is false)."
  (let ((json-false :false) (json-null nil) (json-encoding-pretty-print nil))
    (json-encode value)))

;;;; Process and requests

(defun llmster--live-p ()
  "Whether llmster is running."
  (and llmster--process (process-live-p llmster--process)))

(defun llmster--ensure-process ()
  "Start `llmster rpc' and initialize it, unless it is running."
  (unless (llmster--live-p)
    (clrhash llmster--callbacks)
    (clrhash llmster--event-handlers)
    (setq llmster--process
          (make-process
           :name "llmster"
           :command (append (list llmster-program) llmster-program-arguments '("rpc"))
           :connection-type 'pipe
           :coding 'utf-8-unix
           :noquery t
           :stderr (get-buffer-create " *llmster-stderr*")
           :filter #'llmster--filter
           :sentinel #'llmster--sentinel))
    (process-put llmster--process 'llmster-partial "")
    (llmster--request-sync "initialize" `((protocolVersion . 1)
                                           (coalesceMilliseconds . ,llmster-coalesce-milliseconds)))))

(defun llmster--sentinel (process _event)
  "Fail every waiting request when PROCESS ends."
  (unless (process-live-p process)
    (let ((callbacks (hash-table-values llmster--callbacks)))
      (clrhash llmster--callbacks)
      (clrhash llmster--event-handlers)
      (dolist (callback callbacks)
        (funcall callback nil '((message . "llmster stopped") (data (kind . "server_unreachable"))))))))

(defun llmster--filter (process output)
  "Split OUTPUT of PROCESS into lines and dispatch each message.
A partial last line is kept until the rest arrives."
  (let* ((text (concat (process-get process 'llmster-partial) output))
         (start 0) newline)
    (while (setq newline (string-search "\n" text start))
      (let ((line (substring text start newline)))
        (setq start (1+ newline))
        (unless (string-blank-p line)
          (condition-case err
              (llmster--dispatch (llmster--json-parse line))
            (error (message "llmster: %s" (error-message-string err)))))))
    (process-put process 'llmster-partial (substring text start))))

(defun llmster--dispatch (message)
  "Hand MESSAGE to the callback of its request or to its stream."
  (let ((method (alist-get 'method message))
        (id (alist-get 'id message)))
    (cond
     ((equal method "chat/event")
      (let* ((params (alist-get 'params message))
             (handler (gethash (alist-get 'requestId params) llmster--event-handlers)))
        (when handler (funcall handler params))))
     (method nil)
     ((and id (gethash id llmster--callbacks))
      (let ((callback (gethash id llmster--callbacks)))
        (remhash id llmster--callbacks)
        (remhash id llmster--event-handlers)
        (funcall callback (alist-get 'result message) (alist-get 'error message)))))))

(defun llmster--send (message)
  "Write MESSAGE as one line."
  (process-send-string llmster--process (concat (llmster--json-encode message) "\n")))

(defun llmster--request (method params callback &optional on-event)
  "Send METHOD with PARAMS; call CALLBACK with (RESULT ERROR).
ON-EVENT gets the `chat/event' params of the request.  Return its id."
  (unless (string= method "initialize") (llmster--ensure-process))
  (let ((id (cl-incf llmster--next-id)))
    (puthash id callback llmster--callbacks)
    (when on-event (puthash id on-event llmster--event-handlers))
    (llmster--send `((jsonrpc . "2.0") (id . ,id) (method . ,method) ,@(when params `((params . ,params)))))
    id))

(defun llmster--request-sync (method &optional params)
  "Send METHOD with PARAMS and return its result.
Signal a `user-error' with the server's message when it fails."
  (let* ((done nil) result failure
         (deadline (+ (float-time) llmster-request-timeout)))
    (llmster--request method params (lambda (r e) (setq done t result r failure e)))
    (while (and (not done) (llmster--live-p) (< (float-time) deadline))
      (accept-process-output llmster--process 0.05))
    (cond (failure (user-error "llmster: %s" (alist-get 'message failure)))
          ((not done) (user-error "llmster: no answer to %s" method))
          (t result))))

(defun llmster--cancel-request (id)
  "Ask llmster to cancel request ID."
  (when (llmster--live-p)
    (llmster--send `((jsonrpc . "2.0") (method . "$/cancelRequest") (params (id . ,id))))))

;;;; Chat buffers

(defvar-local llmster--conversation-id nil "The conversation this buffer shows.")
(defvar-local llmster--model nil "The model for the next message, or nil for the conversation's.")
(defvar-local llmster--input-start nil "Marker: where the text to send starts.")
(defvar-local llmster--stream nil "The reply being streamed: a plist, or nil.")

(defvar llmster-chat-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'llmster-send)
    (define-key map (kbd "C-c C-k") #'llmster-cancel)
    (define-key map (kbd "C-c C-m") #'llmster-select-model)
    (define-key map (kbd "C-c C-r") #'llmster-toggle-reasoning)
    (define-key map (kbd "C-c C-l") #'llmster-list-conversations)
    map)
  "Keys of `llmster-chat-mode'.")

(defalias 'llmster--chat-parent-mode (if (fboundp 'markdown-mode) 'markdown-mode 'text-mode))

(define-derived-mode llmster-chat-mode llmster--chat-parent-mode "llmster"
  "A conversation with an LM Studio model.
Type below the last \"### You\" line and send with \\[llmster-send]."
  (add-to-invisibility-spec '(llmster-reasoning . t))
  (add-hook 'kill-buffer-hook #'llmster--cancel-on-kill nil t))

(defun llmster--cancel-on-kill ()
  "Cancel this buffer's reply when the buffer is killed.
llmster saves what arrived."
  (when llmster--stream (llmster--cancel-request (plist-get llmster--stream :id))))

(defun llmster--insert-heading (text)
  "Insert a heading line TEXT at point."
  (insert (propertize text 'face 'llmster-heading-face 'llmster-heading t) "\n"))

(defun llmster--new-input-area ()
  "Start a \"### You\" section at the end of the buffer."
  (goto-char (point-max))
  (unless (or (bobp) (looking-back "\n\n" (- (point) 2))) (insert (if (bolp) "\n" "\n\n")))
  (llmster--insert-heading "### You")
  (set-marker llmster--input-start (point)))

;;;###autoload
(defun llmster (&optional conversation-id)
  "Open a chat buffer: a new conversation, or CONVERSATION-ID from the library."
  (interactive)
  (llmster--ensure-process)
  (let ((buffer (generate-new-buffer "*llmster*")))
    (with-current-buffer buffer
      (llmster-chat-mode)
      (setq llmster--input-start (copy-marker (point-min)))
      (if conversation-id
          (llmster--fill-transcript conversation-id)
        (llmster--new-input-area)))
    (pop-to-buffer-same-window buffer)
    buffer))

(defun llmster--fill-transcript (conversation-id)
  "Insert the saved messages of CONVERSATION-ID."
  (let* ((answer (llmster--request-sync "conversations/get" `((id . ,conversation-id))))
         (conversation (alist-get 'conversation answer)))
    (setq llmster--conversation-id (alist-get 'id conversation))
    (rename-buffer (format "*llmster: %s*" (alist-get 'title conversation)) t)
    (let ((inhibit-read-only t) (buffer-undo-list t))
      (erase-buffer)
      (dolist (message (alist-get 'messages answer))
        (if (equal (alist-get 'role message) "user")
            (progn (llmster--insert-heading "### You") (insert (alist-get 'text message) "\n\n"))
          (llmster--insert-heading "### Assistant")
          (let ((reasoning (alist-get 'reasoning message)))
            (when (and reasoning (not (string-empty-p reasoning)))
              (insert (llmster--reasoning-text reasoning))))
          (insert (or (alist-get 'text message) ""))
          (unless (equal (alist-get 'status message) "complete")
            (insert (format "\n[%s]" (alist-get 'status message))))
          (insert "\n\n")))
      (llmster--new-input-area))))

(defun llmster--reasoning-text (text)
  "TEXT as folded, dim reasoning."
  (propertize text 'face 'llmster-reasoning-face 'invisible 'llmster-reasoning 'llmster-reasoning t))

(defun llmster-toggle-reasoning ()
  "Show or fold the model's reasoning in this buffer."
  (interactive)
  (if (assq 'llmster-reasoning buffer-invisibility-spec)
      (remove-from-invisibility-spec '(llmster-reasoning . t))
    (add-to-invisibility-spec '(llmster-reasoning . t)))
  (force-window-update (current-buffer)))

(defun llmster-send ()
  "Send the text below the last \"### You\" line and stream the reply."
  (interactive)
  (when llmster--stream (user-error "A reply is still streaming; C-c C-k cancels it"))
  (let ((text (string-trim (buffer-substring-no-properties llmster--input-start (point-max)))))
    (when (string-empty-p text) (user-error "Nothing to send: type below the last \"### You\" line"))
    (llmster--start-reply text)))

(defun llmster--start-reply (text)
  "Send TEXT on this buffer's conversation, streaming into the buffer."
  (let ((buffer (current-buffer)) reasoning-end answer-start answer-end start)
    (let ((buffer-undo-list t))
      (goto-char (point-max))
      (delete-region llmster--input-start (point-max))
      (insert text "\n\n")
      (setq start (point))
      (llmster--insert-heading "### Assistant")
      (let ((reply (point)))
        (insert "\n\n\n")
        (llmster--new-input-area)
        ;; Created after the input area, so only streamed text moves them.
        (setq reasoning-end (copy-marker reply t)
              answer-start (copy-marker (1+ reply))
              answer-end (copy-marker (1+ reply) t))))
    (let* ((params `((text . ,text)
                     ,@(when llmster--conversation-id `((conversationId . ,llmster--conversation-id)))
                     ,@(when llmster--model `((model . ,llmster--model)))))
           (id (llmster--request
                "chat/send" params
                (lambda (result error) (llmster--finish-reply buffer result error))
                (lambda (event) (llmster--apply-event buffer event)))))
      (setq llmster--stream (list :id id :start start :reasoning-end reasoning-end
                                  :answer-start answer-start :answer-end answer-end
                                  :reasoning-shown nil)))))

(defun llmster--insert-at (marker text)
  "Insert TEXT at MARKER, without undo records.
Windows whose point was at MARKER follow it; others stay put."
  (let ((followers (cl-remove-if-not (lambda (window) (= (window-point window) marker))
                                     (get-buffer-window-list (current-buffer) nil t)))
        (buffer-undo-list t)
        (inhibit-read-only t))
    (save-excursion
      (goto-char marker)
      (insert text))
    (dolist (window followers) (set-window-point window marker))))

(defun llmster--apply-event (buffer event)
  "Show EVENT of the reply streaming into BUFFER (ignored when BUFFER was killed)."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when llmster--stream
        (unless llmster--conversation-id
          (setq llmster--conversation-id (alist-get 'conversationId event)))
        (let ((type (alist-get 'type event))
              (text (alist-get 'text event)))
          (pcase type
            ("message.delta"
             (llmster--insert-at (plist-get llmster--stream :answer-end) text))
            ("message.replace"
             ;; The server's final answer differs from the deltas: it replaces the reply's text.
             (let ((inhibit-read-only t) (buffer-undo-list t))
               (delete-region (plist-get llmster--stream :answer-start) (plist-get llmster--stream :answer-end)))
             (llmster--insert-at (plist-get llmster--stream :answer-end) text))
            ("reasoning.delta"
             (unless (plist-get llmster--stream :reasoning-shown)
               (plist-put llmster--stream :reasoning-shown t)
               (llmster--insert-at (plist-get llmster--stream :reasoning-end)
                                   (propertize "Reasoning (C-c C-r shows it)\n" 'face 'llmster-reasoning-face)))
             (llmster--insert-at (plist-get llmster--stream :reasoning-end) (llmster--reasoning-text text)))
            ("tool_call.start"
             (llmster--insert-at (plist-get llmster--stream :answer-end)
                                 (format "\n[tool %s …]\n" (alist-get 'name event))))
            ("tool_call.failure"
             (llmster--insert-at (plist-get llmster--stream :answer-end)
                                 (format "[tool %s failed: %s]\n" (alist-get 'name event) (alist-get 'reason event))))
            ("error"
             (llmster--insert-at (plist-get llmster--stream :answer-end)
                                 (format "\n[error: %s]" (alist-get 'message event))))
            (_ nil)))))))

(defun llmster--finish-reply (buffer result error)
  "End the reply in BUFFER with RESULT or ERROR: mark it and make it one undo step."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when llmster--stream
        (let ((answer-end (plist-get llmster--stream :answer-end))
              (status (alist-get 'status result)))
          (cond (error
                 (llmster--insert-at answer-end (format "\n[error: %s]" (alist-get 'message error))))
                ((not (equal status "complete"))
                 (llmster--insert-at answer-end (format "\n[%s%s]" status
                                                        (if (eq (alist-get 'cancelled result) t) ", cancelled" "")))))
          (when result (setq llmster--conversation-id (alist-get 'conversationId result)))
          ;; The whole exchange, from the sent text to the end of the reply, is one undo step.
          (unless (eq buffer-undo-list t)
            (undo-boundary)
            (push (cons (plist-get llmster--stream :start) (marker-position answer-end)) buffer-undo-list)
            (undo-boundary))
          (setq llmster--stream nil)
          (run-hooks 'llmster-reply-finished-hook))))))

(defvar llmster-reply-finished-hook nil
  "Run in the chat buffer when a reply ends (complete, incomplete or failed).")

(defun llmster-streaming-p (&optional buffer)
  "Whether a reply is streaming into BUFFER (default: the current buffer)."
  (buffer-local-value 'llmster--stream (or buffer (current-buffer))))

(defun llmster-cancel ()
  "Cancel the reply being streamed; llmster keeps what arrived, marked incomplete."
  (interactive)
  (if llmster--stream
      (llmster--cancel-request (plist-get llmster--stream :id))
    (message "llmster: nothing is streaming")))

;;;###autoload
(defun llmster-send-region (start end &optional buffer)
  "Send the text from START to END in chat BUFFER.
Interactively BUFFER is asked for; without one a new chat opens."
  (interactive
   (let ((chats (cl-loop for b in (buffer-list)
                         when (eq (buffer-local-value 'major-mode b) 'llmster-chat-mode) collect (buffer-name b))))
     (list (region-beginning) (region-end)
           (when chats (get-buffer (completing-read "Chat buffer: " chats nil t nil nil (car chats)))))))
  (let ((text (buffer-substring-no-properties start end))
        (target (or buffer (save-window-excursion (llmster)))))
    (with-current-buffer target
      (goto-char (point-max))
      (insert text)
      (llmster-send))
    (display-buffer target)
    target))

;;;; Models

(defun llmster--human-size (bytes)
  "BYTES as a short size, e.g. 4.2 GB."
  (cond ((>= bytes 1e9) (format "%.1f GB" (/ bytes 1e9)))
        ((>= bytes 1e6) (format "%.0f MB" (/ bytes 1e6)))
        (t (format "%d B" bytes))))

(defun llmster--model-annotation (model)
  "The annotation of MODEL (an alist) in the picker.
Shows whether it is loaded, its size and its capabilities."
  (let* ((capabilities (alist-get 'capabilities model))
         (features (delq nil (list (when (eq (alist-get 'vision capabilities) t) "vision")
                                   (when (eq (alist-get 'trained_for_tool_use capabilities) t) "tools")
                                   (when (alist-get 'reasoning capabilities) "reasoning")))))
    (format "  %-8s %9s  %s%s"
            (if (eq (alist-get 'loaded model) t) "loaded" "")
            (llmster--human-size (or (alist-get 'size_bytes model) 0))
            (or (alist-get 'params_string model) "")
            (if features (concat "  " (string-join features ", ")) ""))))

(defun llmster-models ()
  "The server's models, as alists."
  (alist-get 'models (llmster--request-sync "models/list")))

(defun llmster-select-model ()
  "Choose the model for this chat's next messages."
  (interactive)
  (let* ((models (cl-remove-if-not (lambda (m) (equal (alist-get 'type m) "llm")) (llmster-models)))
         (table (mapcar (lambda (m) (cons (alist-get 'key m) m)) models))
         (choice (completing-read
                  "Model: "
                  (lambda (string predicate action)
                    (if (eq action 'metadata)
                        `(metadata (annotation-function . ,(lambda (key) (llmster--model-annotation (cdr (assoc key table))))))
                      (complete-with-action action table string predicate)))
                  nil t)))
    (setq llmster--model choice)
    (message "llmster: next messages use %s" choice)
    choice))

;;;; Conversation list

(defvar llmster-chats-mode-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map tabulated-list-mode-map)
    (define-key map (kbd "RET") #'llmster-chats-open)
    (define-key map "r" #'llmster-chats-rename)
    (define-key map "m" #'llmster-chats-move)
    (define-key map "p" #'llmster-chats-toggle-pin)
    (define-key map "d" #'llmster-chats-delete)
    map)
  "Keys of `llmster-chats-mode'.")

(define-derived-mode llmster-chats-mode tabulated-list-mode "llmster chats"
  "The llmster library: pinned conversations first, then the most recent."
  (setq tabulated-list-format [("Pin" 3 nil) ("Folder" 16 t) ("Title" 40 t) ("Model" 20 t) ("Updated" 20 t)])
  (setq tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'llmster--chats-refresh nil t)
  (tabulated-list-init-header))

(defun llmster--chats-refresh ()
  "Read the conversation list from the library."
  (setq tabulated-list-entries
        (mapcar (lambda (c)
                  (list (alist-get 'id c)
                        (vector (if (eq (alist-get 'pinned c) t) "*" "")
                                (or (alist-get 'folderPath c) "")
                                (let ((title (alist-get 'title c))) (if (string-empty-p title) "Untitled" title))
                                (or (alist-get 'modelKey c) "")
                                (replace-regexp-in-string "T" " " (substring (alist-get 'updatedAt c) 0 16)))))
                (alist-get 'conversations (llmster--request-sync "conversations/list")))))

;;;###autoload
(defun llmster-list-conversations ()
  "List the conversations of the library."
  (interactive)
  (llmster--ensure-process)
  (let ((buffer (get-buffer-create "*llmster chats*")))
    (with-current-buffer buffer
      (llmster-chats-mode)
      (llmster--chats-refresh)
      (tabulated-list-print))
    (pop-to-buffer-same-window buffer)
    buffer))

(defun llmster--chats-id ()
  "The conversation id on this line."
  (or (tabulated-list-get-id) (user-error "No conversation on this line")))

(defun llmster-chats-open ()
  "Open the conversation on this line."
  (interactive)
  (llmster (llmster--chats-id)))

(defun llmster-chats-rename (title)
  "Rename the conversation on this line to TITLE."
  (interactive (list (read-string "New title: " (aref (tabulated-list-get-entry) 2))))
  (llmster--request-sync "conversations/rename" `((id . ,(llmster--chats-id)) (title . ,title)))
  (revert-buffer))

(defun llmster-chats-move (folder)
  "Move the conversation on this line to FOLDER (a path; empty for the top level)."
  (interactive
   (list (completing-read "Folder (empty: top level): "
                          (mapcar (lambda (f) (alist-get 'path f))
                                  (alist-get 'folders (llmster--request-sync "folders/list"))))))
  (let* ((folders (alist-get 'folders (llmster--request-sync "folders/list")))
         (match (cl-find folder folders :key (lambda (f) (alist-get 'path f)) :test #'equal))
         (folder-id (cond ((string-empty-p folder) nil)
                          (match (alist-get 'id match))
                          (t (alist-get 'id (llmster--request-sync "folders/create" `((name . ,folder)))))))) 
    (llmster--request-sync "conversations/move" `((id . ,(llmster--chats-id)) (folderId . ,folder-id)))
    (revert-buffer)))

(defun llmster-chats-toggle-pin ()
  "Pin or unpin the conversation on this line."
  (interactive)
  (let ((pinned (equal (aref (tabulated-list-get-entry) 0) "*")))
    (llmster--request-sync (if pinned "conversations/unpin" "conversations/pin") `((id . ,(llmster--chats-id))))
    (revert-buffer)))

(defun llmster-chats-delete ()
  "Delete the conversation on this line, after confirmation."
  (interactive)
  (when (yes-or-no-p (format "Delete \"%s\"? " (aref (tabulated-list-get-entry) 2)))
    (llmster--request-sync "conversations/delete" `((id . ,(llmster--chats-id))))
    (revert-buffer)))

(provide 'llmster)
;;; llmster.el ends here
