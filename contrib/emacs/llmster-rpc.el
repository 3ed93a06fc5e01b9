;;; llmster-rpc.el --- The llmster rpc process and its JSON-RPC requests  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; The client side of `llmster rpc' (see llmster-rpc(7)): one process shared by every buffer,
;; requests with callbacks or waited for, and the notifications of a streaming request.  No
;; buffers, no display: `llmster.el' and its other files build on it.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)


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

(defvar llmster--process nil "The running `llmster rpc' process.")
(defvar llmster--next-id 0 "The id of the last request.")
(defvar llmster--callbacks (make-hash-table :test 'eql)
  "Request id to a function of (RESULT ERROR).")
(defvar llmster--event-handlers (make-hash-table :test 'eql)
  "Request id to a function of one `chat/event' params alist.")
(defvar llmster--notification-functions nil
  "Functions of (METHOD PARAMS), called with llmster's other notifications.
For example conversation/changed: another process changed a conversation.")

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

;; A hand-written client rather than jsonrpc.el (which `llmster rpc --framing=lsp' also
;; serves): measured on a 476 KB reply, jsonrpc.el streamed it no faster (1.4-2.1 s
;; against 1.0-2.1 s here) and fetched the conversation no faster (0.36-0.62 s for the
;; request alone, against 0.18-0.6 s here with the buffer filled).

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
    (process-put llmster--process 'llmster-pending nil)
    (condition-case failure
        (process-put llmster--process 'llmster-info
                     (llmster--request-sync "initialize" `((protocolVersion . 1)
                                                            (coalesceMilliseconds . ,llmster-coalesce-milliseconds))))
      ;; An llmster that did not initialize would refuse every later request (C-g while it starts included): the
      ;; next one starts it again.
      ((error quit)
       (delete-process llmster--process)
       (setq llmster--process nil)
       (signal (car failure) (cdr failure))))))

(defun llmster--sentinel (process _event)
  "Fail every waiting request when PROCESS ends."
  (unless (process-live-p process)
    (let ((callbacks (hash-table-values llmster--callbacks)))
      (clrhash llmster--callbacks)
      (clrhash llmster--event-handlers)
      (dolist (callback callbacks)
        (funcall callback nil '((message . "llmster stopped") (data (kind . "server_unreachable"))))))))

(defun llmster--filter (process output)
  "Dispatch each whole line of OUTPUT of PROCESS.
Output without a line end is only kept (in a list, so a long line costs one
concatenation when its end arrives, not one per read)."
  (let ((newline (string-search "\n" output))
        (pending (process-get process 'llmster-pending)))
    (if (not newline)
        (process-put process 'llmster-pending (cons output pending))
      (let* ((text (if pending (apply #'concat (nreverse (cons output pending))) output))
             (start 0))
        (setq newline (+ newline (- (length text) (length output))))
        (process-put process 'llmster-pending nil)
        (while newline
          (when (> newline start)
            (condition-case err
                (llmster--dispatch (llmster--json-parse (substring text start newline)))
              (error (message "llmster: %s" (error-message-string err)))))
          (setq start (1+ newline)
                newline (string-search "\n" text start)))
        (when (< start (length text))
          (process-put process 'llmster-pending
                       (cons (substring text start) (process-get process 'llmster-pending))))))))

(defun llmster--dispatch (message)
  "Hand MESSAGE to the callback of its request or to its stream."
  (let ((method (alist-get 'method message))
        (id (alist-get 'id message)))
    (cond
     ((equal method "chat/event")
      (let* ((params (alist-get 'params message))
             (handler (gethash (alist-get 'requestId params) llmster--event-handlers)))
        (when handler (funcall handler params))))
     ((equal method "models/progress")
      (let* ((params (alist-get 'params message))
             (handler (gethash (alist-get 'requestId params) llmster--event-handlers)))
        (when handler (funcall handler params))))
     (method (run-hook-with-args 'llmster--notification-functions method (alist-get 'params message)))
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
ON-EVENT gets the notifications of the request.  Return its id."
  (unless (string= method "initialize") (llmster--ensure-process))
  (let ((id (cl-incf llmster--next-id)))
    (puthash id callback llmster--callbacks)
    (when on-event (puthash id on-event llmster--event-handlers))
    (llmster--send `((jsonrpc . "2.0") (id . ,id) (method . ,method) ,@(when params `((params . ,params)))))
    id))

(defun llmster--call (method &optional params)
  "Send METHOD with PARAMS and wait for the answer: (RESULT . ERROR).
Signal a `user-error' when none comes."
  (let* ((done nil) result failure
         (deadline (+ (float-time) llmster-request-timeout))
         ;; Large answers (a long conversation) arrive in few reads.
         (read-process-output-max (max read-process-output-max (* 1024 1024))))
    (let ((id (llmster--request method params (lambda (r e) (setq done t result r failure e)))))
      (unwind-protect
          (while (and (not done) (llmster--live-p) (< (float-time) deadline))
            (accept-process-output llmster--process 0.05))
        (unless done
          ;; Given up on here (the timeout, or C-g), so stopped in llmster too: a reply would otherwise stream on
          ;; with no one waiting.
          (remhash id llmster--callbacks)
          (llmster--cancel-request id)))
      (unless done (user-error "No answer from llmster to %s" method)))
    (cons result failure)))

(defun llmster--request-sync (method &optional params)
  "Send METHOD with PARAMS and return its result.
Signal a `user-error' with the server's message when it fails."
  (let ((answer (llmster--call method params)))
    (when (cdr answer) (user-error "The llmster request failed: %s" (alist-get 'message (cdr answer))))
    (car answer)))

(defun llmster--cancel-request (id)
  "Ask llmster to cancel request ID."
  (when (llmster--live-p)
    (llmster--send `((jsonrpc . "2.0") (method . "$/cancelRequest") (params (id . ,id))))))

(defun llmster--error-kind (error)
  "The stable kind of the JSON-RPC ERROR, e.g. \"continuation_lost\"."
  (alist-get 'kind (alist-get 'data error)))

(provide 'llmster-rpc)
;;; llmster-rpc.el ends here
