;;; llmster-stream.el --- Streaming a reply into a chat buffer, undo-safe  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; A reply streaming into a chat buffer: chat/send's events (text, reasoning, tool calls,
;; progress, errors) applied to the buffer as they arrive, then the reply's end, all inserted
;; without breaking the user's undo history.  The commands, the mode and the rest of the
;; display stay in llmster.el, which requires this file.  Unlike gptel's gptel-request.el,
;; this file is not used alone: it calls back into llmster.el (offers, the context meter,
;; the buffer's name, putting a prompt back), which it declares.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'llmster-rpc)

;; The chat buffers' functions and variables, from llmster.el (which requires this file).
(declare-function llmster--visible "llmster")
(declare-function llmster--make-fold "llmster")
(declare-function llmster--folds "llmster")
(declare-function llmster--set-fold-summary "llmster")
(declare-function llmster--propertize-in-background "llmster")
(declare-function llmster--status-text "llmster")
(declare-function llmster--user-message-text "llmster")
(declare-function llmster--show-context "llmster")
(declare-function llmster--show-meter "llmster")
(declare-function llmster--restore-prompt "llmster")
(declare-function llmster--put-back-message "llmster")
(declare-function llmster--restore-exchange "llmster")
(declare-function llmster--offer-decision "llmster")
(declare-function llmster--offer-fresh-context "llmster")
(declare-function llmster--name-after-title "llmster")
(declare-function llmster--redraw-changed "llmster")
(declare-function llmster--restore-template "llmster")
(declare-function llmster--redraw-kept "llmster")
(declare-function llmster--set-edit "llmster")

(defvar llmster-fold-map)
(defvar llmster--conversation-id)
(defvar llmster--input-start)
(defvar llmster--last-reply)
(defvar llmster--context)
(defvar llmster--images)
(defvar llmster--fresh-next)
(defvar llmster--pending-preset)
(defvar llmster--pending-settings)
(defvar llmster--changed-elsewhere)
(defvar llmster--edit-next)
(defvar llmster--loaded-draft)

;;;; A streaming reply

(defvar-local llmster--stream nil "The reply being streamed (an `llmster--reply'), or nil.")
(defvar-local llmster--progress nil
  "What the streaming reply waits for, with the time since the send:
\"processing prompt 25% · 12 s\"; shown in the mode line and header line.")
(defvar-local llmster--progress-timer nil
  "The timer that moves `llmster--progress' on every second.")

(cl-defstruct (llmster--reply (:constructor llmster--make-reply) (:copier nil))
  "One assistant reply in a chat buffer."
  id            ; the chat/send request id while streaming
  text-start    ; marker: the start of the user message it answers
  start         ; marker: the start of its "### Assistant" line
  body          ; marker: where its text starts
  end           ; marker (advancing): where streamed text goes
  segment       ; overlay of the text being appended (answer or reasoning), or nil
  tools         ; hash table: tool call index to its overlay
  indicator     ; overlay showing progress and that the reply streams
  undo-mark     ; `buffer-undo-list' when the send began
  undo-cell     ; the cell of `buffer-undo-list' whose undo takes the send back
  in-place      ; whether it replaces the last reply (regenerate, fresh context)
  new           ; whether this send created the conversation
  displaced     ; for an edit, the input `llmster-edit-last' displaced (back if the edit is handed back)
  text          ; the text the user typed
  attached      ; the context entries and images that went with it, (CONTEXT . IMAGES)
  params        ; the chat/send parameters the send began with
  errored       ; whether the stream showed an error already
  message       ; the saved reply, as rpc gives it (`codeBlocks' …), once it ended
  message-id    ; the reply's id in the library, from its first event
  answer        ; chat/send's answer once it came, (RESULT . ERROR)
  started       ; `float-time' of the send
  progress)     ; what it waits for and how far: ("processing prompt" . 0.25), or nil

(defvar llmster-reply-finished-hook nil
  "Run in the chat buffer when a reply ends (complete, incomplete or failed).")

(defun llmster-streaming-p (&optional buffer)
  "Whether a reply is streaming into BUFFER (default: the current buffer)."
  (and (buffer-local-value 'llmster--stream (or buffer (current-buffer))) t))

;;;; Inserting a reply without breaking the user's undo history

;; Streamed text is inserted without undo records, above the input area where the user
;; may be typing.  The user's records made meanwhile are shifted by what was inserted
;; before them, and when the reply ends one record for the whole exchange is put where
;; the send happened: `undo' then takes back the user's typing, then the exchange (the chat
;; as before the send, the message back in the input area).

(defun llmster--shift-record (record pos delta)
  "RECORD of `buffer-undo-list' with its positions at or after POS moved by DELTA."
  (let ((shift (lambda (p) (if (>= p pos) (+ p delta) p))))
    (pcase record
      ((pred integerp) (funcall shift record))
      (`(,(and beg (pred integerp)) . ,(and end (pred integerp)))
       (cons (funcall shift beg) (funcall shift end)))
      (`(,(and text (pred stringp)) . ,(and where (pred integerp)))
       (cons text (if (< where 0) (- (funcall shift (- where))) (funcall shift where))))
      (`(nil ,prop ,value ,(and beg (pred integerp)) . ,(and end (pred integerp)))
       `(nil ,prop ,value ,(funcall shift beg) . ,(funcall shift end)))
      (_ record))))

(defun llmster--shift-undo (reply pos delta)
  "Move positions at or after POS by DELTA in the undo records newer than REPLY."
  (when (listp buffer-undo-list)
    (let ((cell buffer-undo-list) (mark (llmster--reply-undo-mark reply)))
      (while (and cell (not (eq cell mark)))
        (setcar cell (llmster--shift-record (car cell) pos delta))
        (setq cell (cdr cell))))))

(defun llmster--note-send (reply)
  "Make undo while REPLY streams take the send back (see `llmster--take-back').
The step sits where the send happened, older than the user's edits since.
An answer asked again shares the step that took the answer before away:
one undo puts that one back in its place, folds and all.  So does an
edit, the step that took the message it replaces away: one undo shows
that one again, with the edit in the input area, still editing."
  (when (listp buffer-undo-list)
    (unless (llmster--reply-in-place reply)
      (unless (assq 'edit (llmster--reply-params reply)) (undo-boundary))
      ;; Undone, the reply shown last before the send is the last one again (asking again did this itself).
      (push (list 'apply #'llmster--set-last-reply llmster--last-reply) buffer-undo-list))
    (push (list 'apply #'llmster--take-back (current-buffer) reply) buffer-undo-list)
    (setf (llmster--reply-undo-cell reply) buffer-undo-list)
    (undo-boundary)
    (setf (llmster--reply-undo-mark reply) buffer-undo-list)))

(defun llmster--record-exchange (reply)
  "Record REPLY's exchange as one undo step, older than the user's edits since.
It takes the place of the step that took the send back.  Undone, it
leaves the chat as before the send: the message as typed back in the
input area (an answer asked again goes alone, the old one next in the
undo history; an edit is still editing, now the version it saved), with
the folds of the text it takes away kept for redo."
  (let ((cell (llmster--reply-undo-cell reply))
        (end (marker-position (llmster--reply-end reply))))
    (when (and cell (listp buffer-undo-list))
      (setcar cell (if (llmster--reply-in-place reply)
                       (list 'apply #'llmster--take-away (marker-position (llmster--reply-start reply)) end)
                     ;; The message as shown, its reply and the input area's heading after it; not up to
                     ;; `llmster--input-start', which a later send moves on.
                     (list 'apply #'llmster--take-away (marker-position (llmster--reply-text-start reply))
                           (save-excursion (goto-char end) (if (looking-at "\n\n### You\n") (match-end 0) end))
                           (llmster--reply-text reply)
                           ;; The library keeps the edit: sent again, the text replaces the version it saved.
                           (when (assq 'edit (llmster--reply-params reply))
                             (cons (llmster--reply-displaced reply)
                                   (alist-get 'parentId (llmster--reply-message reply))))))))))

(defun llmster--set-last-reply (reply)
  "Make REPLY the last reply shown, in an undo step.
Undone, the one before is the last again."
  (when (listp buffer-undo-list)
    (push (list 'apply #'llmster--set-last-reply llmster--last-reply) buffer-undo-list))
  (setq llmster--last-reply reply))

(defun llmster--take-away (start end &optional text edit)
  "Replace START to END, folds and all, with TEXT: the undo of an exchange.
Without TEXT, START to END just goes.  EDIT, for an edit's exchange, is
\(DISPLACED . ID): TEXT is then still editing message ID, and DISPLACED
is the input the edit set aside (see `llmster--set-edit')."
  (let ((inhibit-read-only t))
    (llmster--drop-overlays start end)
    (delete-region start end)
    (goto-char start)
    (when text (insert text))
    (when edit (llmster--set-edit (car edit) (cdr edit)))))

(defconst llmster--reply-overlay-properties '(llmster-fold llmster-kind llmster-tool llmster-tool-part)
  "The properties that mark the overlays of a reply: folds, segments, tool calls.")

(defun llmster--drop-overlays (start end)
  "Delete the overlays from START to END; undo puts a reply's back.
Undo brings back text, not overlays: a reply brought back so lost its
folds (its reasoning plain text, its fold empty)."
  (let ((saved nil))
    (dolist (o (overlays-in start end))
      (when (and (>= (overlay-start o) start) (<= (overlay-end o) end))
        (when (cl-some (lambda (property) (overlay-get o property)) llmster--reply-overlay-properties)
          (push (list (- (overlay-start o) start) (- (overlay-end o) start) (overlay-properties o)) saved))
        (delete-overlay o)))
    (when (and saved (listp buffer-undo-list))
      (push (list 'apply #'llmster--restore-overlays start saved) buffer-undo-list))))

(defun llmster--restore-overlays (start saved)
  "Make again at START the overlays SAVED by `llmster--drop-overlays'."
  (let ((end start))
    (dolist (entry saved)
      (let* ((properties (nth 2 entry))
             ;; Folds and segments are made front-advance (`llmster--make-fold'), the others not.
             (front (and (or (plist-get properties 'llmster-fold) (plist-get properties 'llmster-kind)) t))
             (o (make-overlay (+ start (nth 0 entry)) (+ start (nth 1 entry)) nil front nil)))
        (setq end (max end (overlay-end o)))
        (while properties (overlay-put o (pop properties) (pop properties)))))
    (when (listp buffer-undo-list)
      (push (list 'apply #'llmster--drop-overlays start end) buffer-undo-list))))

(defun llmster--say-after-undo (format-string &rest args)
  "Show FORMAT-STRING with ARGS once the undo command running ends.
`undo' echoes \"Undo\" after the changes it made: said at once, what it
did would flash by and be left to *Messages*."
  (run-at-time 0 nil #'message "%s" (apply #'format-message format-string args)))

(defun llmster--drop-send-step (reply)
  "Take REPLY's send out of the undo history: it saved nothing, nothing streams.
Its step would undo nothing visible (the user saw `undo' do nothing);
the step goes with the boundary that closed it, so the next undo takes
back the typing."
  (let ((cell (llmster--reply-undo-cell reply)))
    (when (and cell (listp buffer-undo-list))
      (let ((older (cdr cell)))
        ;; The step's other records, up to the boundary before it.
        (while (car older) (setq older (cdr older)))
        (if (eq (cdr buffer-undo-list) cell)
            (setq buffer-undo-list older)
          (let ((before buffer-undo-list))
            (while (and (cddr before) (not (eq (cddr before) cell)))
              (setq before (cdr before)))
            (when (cddr before) (setcdr before older)))))
      (setf (llmster--reply-undo-cell reply) nil))))

(defun llmster--take-back (buffer reply)
  "Undo of a send while its REPLY streams into BUFFER.
The reply is cancelled (llmster keeps what arrived) and the chat looks as
before the send: the typed text back in the input area (a preset's template
waiting to fill it again; an edit still replacing the last message, which
is drawn again from the library), or, for an answer asked again, the old
answer back (the rest of the undo step).  What it did is said once the undo
command ends, after its \"Undo\"."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (eq llmster--stream reply)
        (setq llmster--stream nil)
        (llmster--cancel-request (llmster--reply-id reply))
        (let ((withdrawn (llmster--withdraw reply))
              (edit (assq 'edit (llmster--reply-params reply))))
          (delete-overlay (llmster--reply-indicator reply))
          (if (llmster--reply-in-place reply)
              (let ((inhibit-read-only t) (buffer-undo-list t)
                    (from (llmster--reply-start reply)) (to (llmster--reply-end reply)))
                (dolist (o (overlays-in from to)) (delete-overlay o))
                (delete-region from to))
            (save-excursion (llmster--put-back-message reply)))
          (llmster--restore-template reply)
          (when edit
            ;; Before the send the chat was editing its last message, which the library holds as current again.
            (llmster--set-edit (llmster--reply-displaced reply)
                               (and withdrawn (alist-get 'lastMessageId (llmster--reply-params reply))))
            (run-at-time 0 nil #'llmster--redraw-kept buffer nil))
          ;; Else the message of `llmster--withdraw' says what the library kept.
          (when withdrawn
            (llmster--say-after-undo (cond (edit "llmster: undo took the edit back: the last message is current again and the \
edit waits in the input area")
                           ((llmster--reply-in-place reply) "llmster: undo took the answer asked again back: it is \
cancelled, and the answer before is current again")
                           (t "llmster: undo took the message back: its reply is cancelled and the exchange \
withdrawn")))))))))

(defun llmster--withdraw (reply)
  "Withdraw the cancelled REPLY's send in the library too, as in the buffer.
A new message's exchange is withdrawn (chat/withdraw), so regenerate,
alternatives and the next send act on the exchange shown last; an answer
asked again is withdrawn alone, and the one it replaced, which the buffer
shows again, is current again.  Waits for llmster (it ends the send
first): undo is a command.
Return nil when the library keeps the exchange (a message says why)."
  (let ((id (llmster--reply-message-id reply)))
    (unless id
      ;; No event yet: the send's answer says whether anything was saved.
      (let ((deadline (+ (float-time) llmster-request-timeout)))
        (while (and (not (llmster--reply-answer reply)) (llmster--live-p) (< (float-time) deadline))
          (accept-process-output llmster--process 0.05)))
      (setq id (alist-get 'id (alist-get 'message (car (llmster--reply-answer reply)))))
      ;; A first message's conversation: no event named it to the chat, the answer does.
      (unless llmster--conversation-id
        (setq llmster--conversation-id (alist-get 'conversationId (car (llmster--reply-answer reply))))))
    (cond
     ((not (or id (llmster--reply-answer reply)))
      (llmster--say-after-undo "llmster: the send got no answer, so the library may keep its exchange")
      nil)
     ((not (and id llmster--conversation-id)) t)
     (t (let ((answer (llmster--call "chat/withdraw" `((conversationId . ,llmster--conversation-id) (messageId . ,id)))))
          (if (cdr answer)
              (progn (llmster--say-after-undo "llmster: the library keeps the exchange: %s" (alist-get 'message (cdr answer)))
                     nil)
            (llmster--show-meter (alist-get 'modelInstanceId (car (last (alist-get 'messages (car answer)))))
                                 (alist-get 'contextMeter (car answer)))
            t))))))

(defun llmster--insert-at (reply pos text)
  "Insert TEXT at POS for REPLY, with no undo record.
Windows whose point was at POS follow it; others stay put."
  (let* ((pos (if (markerp pos) (marker-position pos) pos))
         (followers (cl-remove-if-not (lambda (window) (= (window-point window) pos))
                                      (get-buffer-window-list (current-buffer) nil t))))
    (llmster--before-streamed-change pos)
    (let ((buffer-undo-list t) (inhibit-read-only t))
      (save-excursion (goto-char pos) (insert text)))
    (llmster--after-streamed-change pos (length text))
    (llmster--shift-undo reply pos (length text))
    (dolist (window followers) (set-window-point window (+ pos (length text))))))

(defun llmster--delete (reply start end)
  "Delete START to END for REPLY, with no undo record."
  (let ((start (if (markerp start) (marker-position start) start))
        (end (if (markerp end) (marker-position end) end)))
    (llmster--before-streamed-change start)
    (let ((buffer-undo-list t) (inhibit-read-only t))
      (delete-region start end))
    (llmster--after-streamed-change start (- start end))
    (llmster--shift-undo reply end (- start end))))

;; Streamed text is not scanned for syntax as it arrives: markdown-mode's scan of a 500 KB reply
;; (redisplay asked for it up to the window's end as the reply grew) took most of the time it
;; streamed in.  The text counts as scanned, as a reopened transcript does, and is scanned in idle
;; slices once the reply ends (`llmster--propertize-in-background').  The change hooks still run:
;; without them font-lock went slower still.

(defun llmster--before-streamed-change (pos)
  "Scan the text before POS for syntax now, if the major mode has not yet.
Only the text since the last scan, at most the message just sent."
  (when (and syntax-propertize-function (< syntax-propertize--done pos))
    (syntax-propertize pos)))

(defun llmster--after-streamed-change (pos delta)
  "Note DELTA characters inserted (deleted, when negative) at POS by a stream.
What `syntax-ppss' cached past POS is forgotten; the changed text counts
as scanned for syntax, as the text after it was."
  (let ((done syntax-propertize--done))
    (syntax-ppss-flush-cache pos)
    (setq syntax-propertize--done (if (>= done pos) (max pos (+ done delta)) done))))

;;;; Applying a stream to the buffer

(defun llmster--set-indicator (reply text)
  "Show TEXT after REPLY's streamed text: progress, or that it is streaming."
  (overlay-put (llmster--reply-indicator reply) 'after-string
               (propertize (concat " ⋯ " text) 'face 'llmster-progress-face)))

(defun llmster--show-progress (reply what fraction)
  "Show that REPLY waits for WHAT (\"processing prompt\"), FRACTION done.
With the time since the send, in the reply, the mode line and the header
line; the time moves on every second, events or not, until the next event
of another kind."
  (setf (llmster--reply-progress reply) (cons what fraction))
  (llmster--tick-progress (current-buffer) reply)
  (unless llmster--progress-timer
    (let ((buffer (current-buffer)) (timer nil))
      ;; The timer stops itself once there is nothing to show, also when the buffer was killed.
      (setq timer (run-at-time 1 1 (lambda () (unless (llmster--tick-progress buffer reply) (cancel-timer timer))))
            llmster--progress-timer timer))))

(defun llmster--tick-progress (buffer reply)
  "Show REPLY's progress in BUFFER with the seconds since its send.
Return non-nil while there is progress to show."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (let ((progress (llmster--reply-progress reply)))
        (if (not (and progress (eq llmster--stream reply)))
            (progn (llmster--end-progress reply) nil)
          (setq llmster--progress (format "%s %d%% · %d s" (car progress) (round (* 100 (cdr progress)))
                                          (round (- (float-time) (llmster--reply-started reply)))))
          (llmster--set-indicator reply llmster--progress)
          (llmster--show-context)
          t)))))

(defun llmster--end-progress (reply)
  "Stop showing REPLY's progress (its text began, or it ended)."
  (setf (llmster--reply-progress reply) nil)
  (when llmster--progress-timer
    (cancel-timer llmster--progress-timer)
    (setq llmster--progress-timer nil))
  (when llmster--progress
    (setq llmster--progress nil)
    (llmster--show-context)))

(defun llmster--close-segment (reply)
  "End REPLY's current text segment; reasoning ends on a line of its own."
  (let ((segment (llmster--reply-segment reply)))
    (when (and segment (eq (overlay-get segment 'llmster-fold) 'reasoning))
      (unless (eq (char-before (llmster--reply-end reply)) ?\n)
        (llmster--insert-at reply (llmster--reply-end reply) "\n")
        (move-overlay segment (overlay-start segment) (llmster--reply-end reply))))
    (setf (llmster--reply-segment reply) nil)))

(defun llmster--reasoning-ended (reply label)
  "Label REPLY's latest reasoning with the engine's LABEL (\"Thought for 4.2 s\")."
  (let ((fold (car (last (llmster--folds 'reasoning)))))
    (when (and fold label (<= (llmster--reply-body reply) (overlay-start fold)))
      (llmster--set-fold-summary fold label))))

(defun llmster--label-reasoning (reply message)
  "Label REPLY's reasoning with the saved MESSAGE's labels, as reopened.
Each part of reasoning gets its part's `reasoningLabel' (the engine's time,
not one measured here); the message's label covers the rest."
  (let ((labels (delq nil (mapcar (lambda (part) (and (equal (alist-get 'kind part) "reasoning") (alist-get 'reasoningLabel part)))
                                  (alist-get 'parts message)))))
    (dolist (fold (llmster--folds 'reasoning))
      (when (<= (llmster--reply-body reply) (overlay-start fold) (llmster--reply-end reply))
        (let ((label (or (pop labels) (alist-get 'reasoningLabel message))))
          (when label (llmster--set-fold-summary fold label)))))))

(defun llmster--append (reply kind text)
  "Append TEXT of KIND (`answer' or `reasoning') to REPLY."
  (setq text (llmster--visible text))
  (let ((segment (llmster--reply-segment reply))
        (end (llmster--reply-end reply)))
    (unless (and segment (eq (overlay-get segment 'llmster-kind) kind))
      (llmster--close-segment reply)
      ;; Segments grow only by `move-overlay': text inserted at their start (a tool call
      ;; shown again before them) stays outside.
      (setq segment (if (eq kind 'reasoning)
                        (llmster--make-fold end end 'reasoning "Thinking…")
                      (make-overlay end end nil t nil)))
      (overlay-put segment 'llmster-kind kind)
      (setf (llmster--reply-segment reply) segment))
    (let ((from (overlay-start segment)))
      (llmster--insert-at reply end text)
      (move-overlay segment from end))))

(defun llmster--replace-segments (reply kind text)
  "Replace REPLY's text of KIND (`answer' or `reasoning') by TEXT."
  (let ((segments (cl-remove-if-not (lambda (o) (eq (overlay-get o 'llmster-kind) kind))
                                    (overlays-in (llmster--reply-body reply) (llmster--reply-end reply)))))
    (llmster--close-segment reply)
    (dolist (segment segments)
      (llmster--delete reply (overlay-start segment) (overlay-end segment))
      (delete-overlay segment))
    (llmster--append reply kind text)))

(defun llmster--tool-text (call)
  "The lines showing tool CALL: name, arguments, status, then its output."
  (let* ((arguments (alist-get 'arguments call))
         (status (alist-get 'status call))
         (output (llmster--visible (alist-get 'output call))))
    (concat (format "⚙ %s(%s) %s\n" (alist-get 'name call)
                    (if arguments (llmster--visible (llmster--json-encode arguments)) "")
                    (pcase status
                      ("succeeded" "✓ done")
                      ("failed" (format "✗ failed: %s" (llmster--visible (or (alist-get 'reason call) ""))))
                      (_ "… running")))
            (when (and output (not (string-empty-p output)))
              (concat output (if (string-suffix-p "\n" output) "" "\n"))))))

(defun llmster--insert-tool (pos call &optional reply)
  "Insert tool CALL at POS (for REPLY, when streaming); return its overlay."
  (let* ((text (concat (if (memq (char-before pos) '(?\n nil)) "" "\n") (llmster--tool-text call)))
         (header (1+ (string-search "\n" text (if (string-prefix-p "\n" text) 1 0)))))
    (if reply (llmster--insert-at reply pos text)
      (goto-char pos)
      (insert text))
    (let ((block (make-overlay pos (+ pos (length text))))
          (output (alist-get 'output call)))
      (overlay-put block 'llmster-tool call)
      (let ((line (make-overlay pos (+ pos header))))
        (overlay-put line 'face 'llmster-tool-face)
        (overlay-put line 'keymap llmster-fold-map)
        (overlay-put line 'llmster-tool-part t))
      (when (< header (length text))
        (llmster--make-fold (+ pos header) (+ pos (length text)) 'output
                            (let ((lines (length (split-string (string-trim-right output) "\n"))))
                              (format "output: %d line%s" lines (if (= lines 1) "" "s")))))
      block)))

(defun llmster--show-tool (reply event)
  "Show tool call EVENT in REPLY: a new call, or a new state of a shown one."
  (let* ((index (alist-get 'index event))
         (old (gethash index (llmster--reply-tools reply)))
         (call (if old (append event (overlay-get old 'llmster-tool)) event)))
    (if (not old)
        (progn (llmster--close-segment reply)
               (puthash index (llmster--insert-tool (marker-position (llmster--reply-end reply)) call reply)
                        (llmster--reply-tools reply)))
      (let ((start (overlay-start old)) (end (overlay-end old)))
        (dolist (o (overlays-in start end))
          (when (or (overlay-get o 'llmster-tool) (overlay-get o 'llmster-tool-part) (eq (overlay-get o 'llmster-fold) 'output))
            (delete-overlay o)))
        (llmster--delete reply start end)
        (puthash index (llmster--insert-tool start call reply) (llmster--reply-tools reply))))))

(defun llmster--apply-event (buffer reply event)
  "Show EVENT of REPLY, streaming into BUFFER (ignored when BUFFER was killed)."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (eq llmster--stream reply)
        (unless llmster--conversation-id
          (setq llmster--conversation-id (alist-get 'conversationId event)))
        (unless (llmster--reply-message-id reply)
          (setf (llmster--reply-message-id reply) (alist-get 'messageId event)))
        (let ((type (alist-get 'type event))
              (text (alist-get 'text event)))
          (pcase type
            ("model_load.progress"
             (llmster--show-progress reply "loading the model" (alist-get 'progress event)))
            ("prompt_processing.progress"
             (llmster--show-progress reply "processing prompt" (alist-get 'progress event)))
            ((guard (llmster--reply-progress reply))
             (llmster--end-progress reply)
             (llmster--apply-event buffer reply event))
            ("message.delta"
             (llmster--append reply 'answer text)
             (llmster--set-indicator reply "answering"))
            ("message.replace" (llmster--replace-segments reply 'answer text))
            ("reasoning.delta"
             (llmster--append reply 'reasoning text)
             (llmster--set-indicator reply "thinking"))
            ("reasoning.replace" (llmster--replace-segments reply 'reasoning text))
            ("reasoning.end" (llmster--reasoning-ended reply (alist-get 'reasoningLabel event)))
            ("tool_call.name"
             (llmster--set-indicator reply (format "preparing a call to %s" (alist-get 'name event))))
            ((or "tool_call.start" "tool_call.arguments" "tool_call.success" "tool_call.failure")
             (llmster--show-tool reply event)
             (llmster--set-indicator reply (format "tool %s" (alist-get 'name event))))
            ("error"
             (llmster--close-segment reply)
             (setf (llmster--reply-errored reply) (copy-marker (llmster--reply-end reply)))
             (llmster--insert-at reply (llmster--reply-end reply)
                                 (format "\n[error: %s]" (llmster--visible (alist-get 'message event)))))
            (_ nil)))))))

(defun llmster--finish-reply (buffer reply result error)
  "End REPLY in BUFFER with RESULT or ERROR."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (eq llmster--stream reply)
        (llmster--end-progress reply)
        (llmster--close-segment reply)
        (delete-overlay (llmster--reply-indicator reply))
        (setq llmster--stream nil)
        ;; The streamed text's syntax scan, skipped while it streamed.
        (llmster--propertize-in-background (marker-position llmster--input-start)
                                           (marker-position (llmster--reply-start reply)))
        (cond
         ((and error (or (llmster--reply-new reply) (llmster--returned-of error)))
          (llmster--restore-prompt reply error)
          ;; The server lost the context (or another holds it): the message waits in the input area.
          (run-at-time 0 nil #'llmster--offer-decision buffer error))
         ((and error (alist-get 'returned (alist-get 'data error)))
          ;; A retry or an edit that saved nothing: the library still has the exchange it would have replaced.
          (llmster--restore-exchange buffer reply error))
         (t
          (let ((end (llmster--reply-end reply))
                (status (alist-get 'status result)))
            (cond ((and (llmster--reply-errored reply) (not (alist-get 'message result)))) ; shown as it streamed
                  ((equal (llmster--error-kind error) "not_found")
                   (llmster--insert-at reply end (format "\n[error: %s]" (substitute-command-keys "this conversation \
is no longer in the library (deleted?); \\[llmster] starts a new chat"))))
                  (error
                   (llmster--insert-at reply end (format "\n[error: %s]" (alist-get 'message error))))
                  ((alist-get 'message result)
                   ;; The saved reply's status and reason, as the reopened chat shows them (the
                   ;; stream's error line gives way to it).
                   (when (llmster--reply-errored reply)
                     (llmster--delete reply (llmster--reply-errored reply) end))
                   (let ((line (llmster--status-text (alist-get 'message result))))
                     (when line (llmster--insert-at reply end line))))
                  ((not (equal status "complete"))
                   (llmster--insert-at reply end (format "\n[%s]" status))))
            (when result
              (setf (llmster--reply-message reply) (alist-get 'message result))
              (llmster--complete-reasoning reply (alist-get 'message result))
              (llmster--label-reasoning reply (alist-get 'message result)))
            (llmster--record-exchange reply)
            (setq llmster--last-reply reply)
            (llmster--give-back-displaced reply)
            (when result
              ;; What went with a new message waits no more (what was attached while it streamed still does);
              ;; asking again and an edit send the last one's items.
              (unless (cl-some (lambda (key) (assq key (llmster--reply-params reply))) '(retry edit))
                ;; A message that was the draft clears it in the library (llmster-rpc(7)): the input no
                ;; longer shows one.
                (when (equal (string-trim (or llmster--loaded-draft "")) (string-trim (or (llmster--reply-text reply) "")))
                  (setq llmster--loaded-draft ""))
                (let ((attached (llmster--reply-attached reply)))
                  (setq llmster--context (cl-remove-if (lambda (entry) (memq entry (car attached))) llmster--context)
                        llmster--images (cl-remove-if (lambda (image) (memq image (cdr attached))) llmster--images))))
              (setq llmster--conversation-id (alist-get 'conversationId result)
                    llmster--fresh-next nil
                    llmster--pending-preset nil
                    llmster--pending-settings nil)
              (llmster--show-context)
              (llmster--show-meter (alist-get 'modelInstanceId (alist-get 'message result)) (alist-get 'contextMeter result))
              (llmster--name-after-title buffer)
              (when (cl-some (lambda (key) (assq key (llmster--reply-params reply))) '(preset context images edit))
                (llmster--redraw-message-sent buffer reply (alist-get 'parentId (alist-get 'message result))))
              (when (eq (alist-get 'recap result) t)
                (message "llmster: the fresh context started with a recap of the earlier turns"))
              (when (stringp (alist-get 'stopNotice result))
                (message "llmster: %s" (alist-get 'stopNotice result))))
            (when (equal (llmster--error-kind error) "continuation_lost")
              (run-at-time 0 nil #'llmster--offer-fresh-context buffer)))))
        (when llmster--changed-elsewhere
          (run-at-time 0 nil #'llmster--redraw-changed buffer))
        (run-hooks 'llmster-reply-finished-hook)))))

(defun llmster--give-back-displaced (reply)
  "Put the input that REPLY's edit set aside back in the input area.
The edit is saved and the input it displaced was never sent: it goes
before any text typed while the reply streamed."
  (let ((displaced (llmster--reply-displaced reply)))
    (when (and displaced (not (string-empty-p (string-trim displaced))))
      (let* ((typed (buffer-substring-no-properties llmster--input-start (point-max)))
             (blank (string-empty-p (string-trim typed)))
             (at-end (= (point) (point-max))))
        (save-excursion
          (when blank (delete-region llmster--input-start (point-max)))
          (goto-char llmster--input-start)
          (insert displaced (if blank "" "\n\n")))
        (when (and blank at-end) (goto-char (point-max)))
        (message "llmster: the input the edit set aside is back in the input area")))))

(defun llmster--complete-reasoning (reply message)
  "Show the saved reasoning of MESSAGE in REPLY, unless the stream showed it all."
  (let ((saved (llmster--visible (alist-get 'reasoning message)))
        (shown (cl-remove-if-not (lambda (o) (eq (overlay-get o 'llmster-kind) 'reasoning))
                                 (overlays-in (llmster--reply-body reply) (llmster--reply-end reply)))))
    (when (and saved (not (string-empty-p saved)) (<= (length shown) 1)
               (not (and shown (equal (string-trim (buffer-substring-no-properties
                                                    (overlay-start (car shown)) (overlay-end (car shown))))
                                      (string-trim saved)))))
      (let ((start (if shown (overlay-start (car shown)) (marker-position (llmster--reply-body reply)))))
        (when shown
          (llmster--delete reply (overlay-start (car shown)) (overlay-end (car shown)))
          (delete-overlay (car shown)))
        (let ((text (concat saved (if (string-suffix-p "\n" saved) "" "\n"))))
          (llmster--insert-at reply start text)
          (llmster--make-fold start (+ start (length text)) 'reasoning (alist-get 'reasoningLabel message)))))))

(defun llmster--returned-of (error)
  "The message chat/send handed back with ERROR when it saved nothing, or nil.
An alist: the `text' as typed, its `images' and `context' items.  A retry or
an edit handed back is nil: see `llmster--restore-exchange'."
  (let ((returned (alist-get 'returned (alist-get 'data error))))
    (and returned
         (member (alist-get 'kind returned) '(nil "message"))
         returned)))

(defun llmster--redraw-message-sent (buffer reply id)
  "Show the saved user message ID above REPLY in BUFFER, as reopening would.
A template fills the typed text, and context items and images are named as
the library names them; the transcript then reads as the reopened one."
  (llmster--request
   "conversations/get" `((id . ,(buffer-local-value 'llmster--conversation-id buffer)))
   (lambda (result _error)
     (let ((message (cl-find id (alist-get 'messages result) :key (lambda (m) (alist-get 'id m)) :test #'equal)))
       (when (and message (buffer-live-p buffer))
         (with-current-buffer buffer
           (let* ((from (marker-position (llmster--reply-text-start reply)))
                  (to (marker-position (llmster--reply-start reply)))
                  (text (llmster--user-message-text message)))
             (unless (equal text (buffer-substring-no-properties from to))
               ;; Inserted before the old text goes, so the reply's markers stay after it.
               (llmster--insert-at reply from text)
               (llmster--delete reply (+ from (length text)) (+ to (length text)))
               (llmster--record-exchange reply)))))))))

(provide 'llmster-stream)
;;; llmster-stream.el ends here
