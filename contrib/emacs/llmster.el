;;; llmster.el --- Chat with LM Studio models through llmster  -*- lexical-binding: t; -*-

;; Author: The llmster authors
;; Maintainer: The llmster authors
;; Version: 0.2.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/llmster/llmster

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; A front end for `llmster rpc' (see llmster-rpc(7)): the same conversations, library and
;; models as the llmster REPL, from Emacs.  Built-in libraries only; markdown-mode is used
;; for the chat buffers when it is installed.
;;
;; Install on Emacs 28 or later (llmster on the PATH):
;;
;;   (add-to-list 'load-path "/path/to/llmster/contrib/emacs")
;;   (require 'llmster)
;;
;; or, on Emacs 29 and later, from the repository:
;;
;;   (package-vc-install
;;    '(llmster :url "https://github.com/llmster/llmster" :lisp-dir "contrib/emacs"))
;;
;; `M-x package-install-file' on the directory holding these files installs them as a package
;; on Emacs 28 too.
;;
;; The package's files, as gptel's and codecompanion's are split:
;;
;;   llmster.el            chat buffers: commands, the mode, folds, models, settings
;;   llmster-stream.el     a reply streamed into the buffer, undo-safe
;;   llmster-rpc.el        the `llmster rpc' process and its requests (no display)
;;   llmster-context.el    buffers, files and regions sent with a message
;;   llmster-rewrite.el    rewriting a region, shown as a diff
;;   llmster-library.el    the conversation list, search, export, import, backup, doctor
;;   llmster-transient.el  `llmster-menu', the only file that needs transient
;;
;; In a chat buffer (M-x llmster):
;;
;;   C-c C-c   send what is below the last "### You" line
;;   C-c C-k   cancel the reply being streamed (what arrived is kept), or stop editing
;;   C-c C-a   ask again: a new answer to the last message (the old one stays an alternative)
;;   C-c C-w   edit the last message and send it again
;;   C-c C-v   choose among the answers (or, C-u, versions) of the last message
;;   C-c C-e   choose the model
;;   C-c C-r   fold or show the reasoning or tool output at point (elsewhere: all reasoning)
;;   C-c C-f   fork: a new conversation from the last reply (C-u N: from reply N)
;;   C-c C-l   the library
;;   C-c C-t   the menu of every command (`llmster-menu')
;;
;; A send refused or failed before any reply saves nothing: the message goes back to the input
;; area, its images and context items still attached, and undo goes on from its typing.  An edit
;; or a regenerate names the message it acts on: begun before another client sent to the chat, it
;; is refused rather than applied to the newer message, and the chat is drawn again.
;; When LM Studio lost the conversation's context (it restarted), llmster offers to send it again
;; in a fresh context (with a recap of the earlier turns, or empty); declined, it stays in the
;; input area and `llmster-fresh-context' sends it later.
;;
;; Undo while a reply streams takes the message back (to the input area), cancels the reply
;; and withdraws the exchange from the library, so asking again answers what the chat shows
;; last.  After a reply, undo changes the view only (the library keeps the exchange): it takes
;; the exchange away, leaving the chat as before the send (the message as typed in the input
;; area), then the typing; an answer asked again gives way to the one before in one undo, and an
;; edit to the message it replaced, the edit back in the input area and still editing (sent, it
;; makes another version).  Undo and redo start and leave an edit with its text, so the header
;; line says whether the next send is an edit.  A chat another process changed is drawn again,
;; once for a send there (when its reply ends); an input left as the library's draft filled it
;; follows the draft, so a draft sent from another client leaves it, and text typed since stays.
;; Closing a chat (or Emacs) saves its input as the draft only when it is not the draft it last
;; showed (as loaded, followed or saved): a draft another client saved meanwhile stays, and
;; an input emptied of the draft it showed does not wipe it either.
;;
;; `llmster-copy-code-block' and `llmster-insert-code-block' take a code block of the last
;; reply; `llmster-switch-server' changes the server profile.
;;
;; From any buffer: `llmster-send-region' (the region as a fenced block, with an
;; instruction), `llmster-rewrite' (replace the region with the model's answer, shown as a
;; diff to accept or reject), `llmster-add-context' (a buffer or file sent with the next
;; message), `llmster-attach-image' (an image for a model that sees images),
;; `llmster-search' and `llmster-list-conversations' (the library).  In a chat,
;; `llmster-preview' shows the JSON the next send would post, without sending it.
;;
;; The REPL's presets (`preset.NAME.system = ...' in llmster's config: a system prompt,
;; model and settings) start a chat (`llmster-new-chat-with-preset', or
;; `llmster-default-preset' for every new one) or apply to the current one
;; (`llmster-apply-preset').

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'llmster-rpc)
(require 'llmster-stream)
(require 'markdown-mode nil t)

;; The commands of the package's other files, for an install by `load-path' alone (package.el
;; makes the same autoloads from their cookies).
(dolist (command '((llmster-add-context . "llmster-context") (llmster-send-region . "llmster-context")
                   (llmster-attach-image . "llmster-context")
                   (llmster-clear-context . "llmster-context")
                   (llmster-rewrite . "llmster-rewrite") (llmster-rewrite-cancel . "llmster-rewrite")
                   (llmster-list-conversations . "llmster-library") (llmster-chats-open . "llmster-library")
                   (llmster-chats-rename . "llmster-library") (llmster-chats-move . "llmster-library")
                   (llmster-chats-toggle-pin . "llmster-library") (llmster-chats-delete . "llmster-library")
                   (llmster-export . "llmster-library") (llmster-import . "llmster-library")
                   (llmster-backup . "llmster-library") (llmster-doctor . "llmster-library")
                   (llmster-search . "llmster-library") (llmster-search-list . "llmster-library")
                   (llmster-fork . "llmster-library") (llmster-menu . "llmster-transient")))
  (unless (fboundp (car command)) (autoload (car command) (cdr command) nil t)))

(declare-function llmster--context-items "llmster-context")
(declare-function llmster-menu "llmster-transient")
(declare-function llmster-list-conversations "llmster-library")
(declare-function llmster-fork "llmster-library")

(defcustom llmster-default-preset nil
  "The preset a new chat starts with (a name from llmster's config), or nil.
Presets are the `preset.NAME.system' lines the llmster REPL's /preset uses."
  :type '(choice (const :tag "None" nil) string)
  :group 'llmster)

(defcustom llmster-fold-reasoning t
  "Whether reasoning is folded to a one-line summary in new replies."
  :type 'boolean
  :group 'llmster)

(defface llmster-reasoning-face '((t :inherit shadow))
  "Face of the model's reasoning."
  :group 'llmster)

(defface llmster-fold-face '((t :inherit (shadow italic)))
  "Face of the one-line summary of folded reasoning or tool output."
  :group 'llmster)

(defface llmster-tool-face '((t :inherit font-lock-builtin-face))
  "Face of a tool call's line."
  :group 'llmster)

(defface llmster-progress-face '((t :inherit warning))
  "Face of the progress and streaming indicator."
  :group 'llmster)

(defface llmster-heading-face '((t :inherit bold))
  "Face of the \"### You\" and \"### Assistant\" lines."
  :group 'llmster)


;;;; Folds: reasoning and tool output, as overlays (major-mode font-lock cannot undo them)

(defvar llmster-fold-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'llmster-toggle-reasoning)
    (define-key map (kbd "RET") #'llmster-toggle-reasoning)
    map)
  "Keys on a folded region.")

(defun llmster--make-fold (start end kind summary)
  "Fold START to END, text of KIND (`reasoning' or `output'), behind SUMMARY."
  (let ((fold (make-overlay start end nil t nil)))
    (overlay-put fold 'llmster-fold kind)
    (overlay-put fold 'llmster-summary summary)
    (overlay-put fold 'llmster-folded (or (eq kind 'output) llmster-fold-reasoning))
    (overlay-put fold 'face (if (eq kind 'reasoning) 'llmster-reasoning-face 'llmster-tool-face))
    (overlay-put fold 'keymap llmster-fold-map)
    (llmster--render-fold fold)
    fold))

(defun llmster--render-fold (fold)
  "Show FOLD as its one-line summary, or its text under a summary line."
  (let ((summary (overlay-get fold 'llmster-summary)))
    (if (overlay-get fold 'llmster-folded)
        (progn (overlay-put fold 'display (propertize (concat "▸ " summary "\n") 'face 'llmster-fold-face))
               (overlay-put fold 'before-string nil))
      (overlay-put fold 'display nil)
      (overlay-put fold 'before-string (propertize (concat "▾ " summary "\n") 'face 'llmster-fold-face)))))

(defun llmster--set-fold-summary (fold summary)
  "Make SUMMARY the one line shown for FOLD."
  (overlay-put fold 'llmster-summary summary)
  (llmster--render-fold fold))

(defun llmster--folds (&optional kind)
  "The folds of this buffer (of KIND only, when given), in buffer order."
  (sort (cl-remove-if-not (lambda (o) (and (overlay-get o 'llmster-fold)
                                           (or (null kind) (eq (overlay-get o 'llmster-fold) kind))))
                          (overlays-in (point-min) (point-max)))
        (lambda (a b) (< (overlay-start a) (overlay-start b)))))

(defun llmster--fold-at (position)
  "The fold covering POSITION, or the output fold of the tool call there, or nil."
  (let ((overlays (overlays-at position)))
    (or (cl-find-if (lambda (o) (overlay-get o 'llmster-fold)) overlays)
        (let ((block (cl-find-if (lambda (o) (overlay-get o 'llmster-tool)) overlays)))
          (and block (cl-find-if (lambda (o) (eq (overlay-get o 'llmster-fold) 'output))
                                 (overlays-in (overlay-start block) (overlay-end block))))))))

(defun llmster-toggle-reasoning ()
  "Fold or show the reasoning or tool output at point; elsewhere, all reasoning."
  (interactive)
  (let ((fold (or (llmster--fold-at (point))
                  (and (> (point) (point-min)) (llmster--fold-at (1- (point)))))))
    (if fold
        (progn (overlay-put fold 'llmster-folded (not (overlay-get fold 'llmster-folded)))
               (llmster--render-fold fold))
      (let* ((folds (llmster--folds 'reasoning))
             (fold-them (not (cl-every (lambda (o) (overlay-get o 'llmster-folded)) folds))))
        (setq-local llmster-fold-reasoning fold-them)
        (dolist (o folds)
          (overlay-put o 'llmster-folded fold-them)
          (llmster--render-fold o))))))

;;;; Control characters from a model, a tool or a server

(defface llmster-escape-face '((t :inherit escape-glyph))
  "Face of a control character from the model, shown as a visible escape."
  :group 'llmster)

(defconst llmster--control-regexp "[\0-\10\13-\37\177\u0080-\u009f]"
  "A control character other than newline and tab (C0, DEL or C1).")

(defun llmster--visible (text)
  "TEXT with its control characters replaced by visible escapes.
ESC becomes \"^[\", any other C0 control ^ and its letter, DEL \"^?\" and a C1
control \"^[\" and its 7-bit form (CSI: \"^[[\"), as the terminal shows
them; a carriage return goes.  Newlines and tabs stay.  Text from the
model, a tool or a server never puts raw control bytes in the buffer,
where they would travel into kills, saves and other programs; the
mapping is per character, so a stream mapped in pieces reads as a whole."
  (if (not (and text (string-match-p llmster--control-regexp text)))
      text
    (replace-regexp-in-string
     llmster--control-regexp
     (lambda (match)
       (let ((char (aref match 0)))
         (propertize (cond ((eq char ?\r) "")
                           ((< char 32) (string ?^ (+ char 64)))
                           ((eq char 127) "^?")
                           (t (string ?^ ?\[ (- char 64))))
                     'face 'llmster-escape-face 'font-lock-face 'llmster-escape-face)))
     text t t)))

;;;; Chat buffers

(defvar-local llmster--conversation-id nil "The conversation this buffer shows.")
(defvar-local llmster--model nil "The model for the next message, or nil for the conversation's.")
(defvar-local llmster--input-start nil "Marker: where the text to send starts.")
(defvar-local llmster--last-reply nil "The last reply shown in this buffer (an `llmster--reply').")
(defvar-local llmster--images nil
  "Image files sent with the next message (`llmster-attach-image').")
(defvar-local llmster--context nil
  "Buffers, files and regions sent with the next message: (NAME . SOURCE).
SOURCE is a buffer, a file name, or (LANGUAGE . TEXT) for a region.")
(defvar-local llmster--pending-settings nil
  "Settings for the conversation's first message (system prompt, reasoning).")
(defvar-local llmster--pending-preset nil
  "The preset the conversation is created with at the first message, or nil.")
(defvar-local llmster--template-preset nil
  "A preset whose template llmster fills with the next message, or nil.
The REPL's /preset NAME does the same: the template applies to one message.")
(defvar-local llmster--fresh-next nil "Whether the next message starts a fresh server context.")
(defvar-local llmster--returned nil
  "Whether the input area holds a message a send handed back unsent.
Nothing of it was saved; `llmster-fresh-context' sends it again.  The
value `edit' is an edit handed back: leaving the edit clears it.")
(defvar-local llmster--edit-next nil
  "While the next send replaces the last message: the input it displaced, else nil.")
(defvar-local llmster--edit-of nil
  "While the next send replaces the last message: that message's id, when known.
The edit names it, so that one sent from another client meanwhile is not the
message it replaces.")
(defvar-local llmster--usage nil "The mode-line text: model and context use.")
(defvar-local llmster--changed-elsewhere nil
  "Whether another process changed the conversation while a reply streamed here.
The chat is drawn again from the library when the reply ends.")
(defvar-local llmster--drawn-messages nil
  "The messages of conversations/get when the chat was last drawn from it.")

(defvar-local llmster--loaded-draft nil
  "The draft this chat's input last showed: as loaded, followed or saved.
\"\" or nil: none.  The input is saved as the draft only when it differs,
so a draft another client saved, which this input never showed, stays.")
(defvar-local llmster--forked-from nil
  "For a fork, where it came from: the `forkedFrom' alist of conversations/get.")

(defvar llmster-chat-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'llmster-send)
    (define-key map (kbd "C-c C-k") #'llmster-cancel)
    (define-key map (kbd "C-c C-a") #'llmster-regenerate)
    (define-key map (kbd "C-c C-w") #'llmster-edit-last)
    (define-key map (kbd "C-c C-v") #'llmster-choose-alternative)
    (define-key map (kbd "C-c C-e") #'llmster-select-model)
    (define-key map (kbd "C-c C-r") #'llmster-toggle-reasoning)
    (define-key map (kbd "C-c C-l") #'llmster-list-conversations)
    (define-key map (kbd "C-c C-t") #'llmster-menu)
    (define-key map (kbd "C-c C-f") #'llmster-fork)
    map)
  "Keys of `llmster-chat-mode'.")

(defalias 'llmster--chat-parent-mode (if (fboundp 'markdown-mode) 'markdown-mode 'text-mode))

(define-derived-mode llmster-chat-mode llmster--chat-parent-mode "llmster"
  "A conversation with an LM Studio model.
Type below the last \"### You\" line and send with \\[llmster-send].

\\{llmster-chat-mode-map}"
  (setq-local mode-line-process '("" llmster--usage (llmster--progress (" ⋯ " llmster--progress))))
  (when syntax-propertize-function
    (setq-local syntax-propertize-function (llmster--by-message syntax-propertize-function)))
  (add-hook 'kill-buffer-hook #'llmster--cancel-on-kill nil t)
  ;; `kill-emacs' runs no `kill-buffer-hook'.
  (add-hook 'kill-emacs-hook #'llmster--save-drafts))

(defun llmster--by-message (propertize)
  "PROPERTIZE, a `syntax-propertize-function', with the input area on its own.
The text below the last heading is seen from that heading on, so
markdown-mode's search back for an open code fence stops there: after a
long reply every key typed cost it 100-200 ms.  A fence left open in the
transcript no longer runs on into the input.  The transcript is
propertized as before (narrowing it per message would make
`syntax-ppss' parse each long reply afresh)."
  (lambda (start end)
    (let ((input (llmster--last-heading)))
      (when (< start (min input end))
        (funcall propertize start (min input end)))
      (when (> end input)
        (save-restriction
          (narrow-to-region input (point-max))
          (funcall propertize (max start input) end))))))

(defvar-local llmster--syntax-scanned nil
  "While the transcript's syntax scan runs in the background: how far it got.")

(defvar llmster-propertize-slice-seconds 0.03
  "How long, at most, one slice of a reopened chat's background syntax scan runs.")

(defun llmster--propertize-in-background (end &optional start)
  "Scan the transcript from START to END for syntax in idle time; show it now.
START defaults to the transcript's beginning.
Until the scan reaches them, the major mode sees the transcript as
scanned (so showing the chat costs no scan of it), and a code block
there may look like prose; each scanned part is fontified again."
  (when (and syntax-propertize-function (> end (or start (point-min))))
    (let ((running llmster--syntax-scanned))
      (setq llmster--syntax-scanned (min (or start (point-min)) (or running (point-max)))
            syntax-propertize--done (if start (max end syntax-propertize--done) end))
      (unless running (run-at-time 0 nil #'llmster--propertize-slice (current-buffer))))))

(defun llmster--propertize-slice (buffer)
  "Scan the next slice of BUFFER's transcript for syntax, then schedule the next.
The scan stops where the major mode's own scan starts again (the
transcript changed there)."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (let ((deadline (+ (float-time) llmster-propertize-slice-seconds))
            (from llmster--syntax-scanned))
        (while (and llmster--syntax-scanned (< llmster--syntax-scanned syntax-propertize--done)
                    (< (float-time) deadline) (not (input-pending-p)))
          (let ((done syntax-propertize--done))
            (setq syntax-propertize--done llmster--syntax-scanned)
            (syntax-propertize (min done (+ llmster--syntax-scanned 4000)))
            (setq llmster--syntax-scanned syntax-propertize--done
                  syntax-propertize--done (max done syntax-propertize--done))))
        (when (and from llmster--syntax-scanned (> llmster--syntax-scanned from))
          ;; Parse states cached over the scanned part predate its syntax properties.
          (let ((done syntax-propertize--done))
            (syntax-ppss-flush-cache from)
            (setq syntax-propertize--done done))
          (font-lock-flush from llmster--syntax-scanned))
        (if (and llmster--syntax-scanned (< llmster--syntax-scanned syntax-propertize--done))
            (run-at-time 0.01 nil #'llmster--propertize-slice buffer)
          (setq llmster--syntax-scanned nil))))))

(defun llmster--last-heading ()
  "The start of the last \"### You\" or \"### Assistant\" line, else `point-min'.
A literal search backwards from the end: the input area below it is short."
  (save-excursion
    (goto-char (point-max))
    (let ((found nil))
      (while (and (not found) (search-backward "\n### " nil t))
        (when (looking-at "\n### \\(?:You\\|Assistant\\)$") (setq found (1+ (point)))))
      (or found (point-min)))))

(defun llmster--chat-buffer-p (&optional buffer)
  "Whether BUFFER (default: the current one) is a chat buffer."
  (eq (buffer-local-value 'major-mode (or buffer (current-buffer))) 'llmster-chat-mode))

(defun llmster--require-chat ()
  "Signal a `user-error' outside a chat buffer."
  (unless (llmster--chat-buffer-p) (user-error "Not an llmster chat buffer (M-x llmster opens one)")))

(defun llmster--cancel-on-kill ()
  "Cancel the reply and keep the unsent text as a draft, as the buffer is killed.
llmster saves what arrived of the reply."
  (when llmster--stream (llmster--cancel-request (llmster--reply-id llmster--stream)))
  (llmster--save-draft))

(defun llmster--save-draft (&optional wait)
  "Keep this chat's unsent text as its conversation's draft.
The text is kept as typed, its indentation included; only blanks at its
very end go (blanks alone are no draft).  It is saved only when it is
not the draft the input last showed (`llmster--loaded-draft'): an input
left as loaded, or as empty as it came, does not overwrite a draft
another client saved since.  That draft is sent along as `shown', so
llmster also keeps such a newer draft when the input was emptied.
With WAIT, return once llmster has saved it (Emacs is about to exit)."
  (when (and llmster--conversation-id (llmster--live-p))
    ;; Leading blanks are the message's: an indented code line, or a blank before a `/'.
    (let ((text (string-trim-right (buffer-substring-no-properties llmster--input-start (point-max)))))
      (unless (equal text (string-trim-right (or llmster--loaded-draft "")))
        (let ((params `((conversationId . ,llmster--conversation-id) (text . ,text)
                        (shown . ,(or llmster--loaded-draft "")))))
          (if wait
              (llmster--request-sync "drafts/set" params)
            (llmster--request "drafts/set" params #'ignore)))
        (setq llmster--loaded-draft text)))))

(defun llmster--save-drafts ()
  "Keep the unsent text of every chat as a draft, before Emacs exits."
  (dolist (buffer (buffer-list))
    (when (llmster--chat-buffer-p buffer)
      (with-current-buffer buffer
        ;; A draft that cannot be saved (llmster stopped, the chat deleted) must not stop Emacs from exiting.
        (condition-case err (llmster--save-draft t)
          (error (message "llmster: %s" (error-message-string err))))))))

(defun llmster--insert-heading (text)
  "Insert a heading line TEXT at point."
  (insert (propertize text 'face 'llmster-heading-face 'llmster-heading t) "\n"))

(defun llmster--new-input-area ()
  "Start a \"### You\" section at the end of the buffer."
  (goto-char (point-max))
  (unless (or (bobp) (looking-back "\n\n" (- (point) 2))) (insert (if (bolp) "\n" "\n\n")))
  (llmster--insert-heading "### You")
  (set-marker llmster--input-start (point)))

(defun llmster--name-buffer (title)
  "Name this buffer after the conversation's TITLE, rpc's `displayTitle'.
A long title is cut, so the mode line still shows the model and context use."
  (rename-buffer (format "*llmster: %s*" (truncate-string-to-width title 40 nil nil "…"))
                 t))

(defun llmster--aligned (candidates annotate)
  "ANNOTATE, a completion annotation function, its text aligned in one column.
CANDIDATES are the strings it annotates."
  (let ((width (apply #'max 0 (mapcar #'string-width candidates))))
    (lambda (candidate)
      (concat (make-string (max 0 (- width (string-width candidate))) ?\s) (funcall annotate candidate)))))

;;;###autoload
(defun llmster (&optional conversation-id)
  "Open a chat buffer: a new conversation, or CONVERSATION-ID from the library.
A conversation already open in a buffer is shown there."
  (interactive)
  (llmster--ensure-process)
  (let ((buffer (or (and conversation-id
                         (cl-find-if (lambda (b) (and (llmster--chat-buffer-p b)
                                                      (equal (buffer-local-value 'llmster--conversation-id b) conversation-id)))
                                     (buffer-list)))
                    (let ((new (generate-new-buffer "*llmster*")))
                      (with-current-buffer new
                        (llmster-chat-mode)
                        (setq llmster--input-start (copy-marker (point-min))
                              llmster--pending-preset llmster-default-preset
                              llmster--template-preset (and llmster-default-preset
                                                            (llmster--preset-template-p llmster-default-preset)
                                                            llmster-default-preset))
                        (if conversation-id
                            (llmster--fill-transcript conversation-id)
                          ;; Not an undo step: undo past the first send would take the heading away.
                          (let ((buffer-undo-list t)) (llmster--new-input-area))))
                      new))))
    (pop-to-buffer-same-window buffer)
    buffer))

(defun llmster--fill-transcript (conversation-id &optional answer)
  "Insert the saved messages of CONVERSATION-ID.
ANSWER is conversations/get's for it, when it was asked already.
The major mode's change hooks do not run for each part inserted, and its
syntax scan of the transcript (markdown-mode's, which took 1.3-2 s for a
500 KB reply) happens after the chat is shown, in slices of idle time:
see `llmster--propertize-in-background'."
  (let* ((answer (or answer (llmster--request-sync "conversations/get" `((id . ,conversation-id) (open . t)))))
         (conversation (alist-get 'conversation answer))
         (inhibit-read-only t) (buffer-undo-list t) (inhibit-modification-hooks t) text-start)
    (syntax-ppss-flush-cache (point-min))
    (setq llmster--conversation-id (alist-get 'id conversation)
          llmster--forked-from (alist-get 'forkedFrom answer)
          llmster--drawn-messages (alist-get 'messages answer))
    (llmster--name-buffer (alist-get 'displayTitle conversation))
    (erase-buffer)
    (dolist (message (alist-get 'messages answer))
      (if (equal (alist-get 'role message) "user")
          (progn (llmster--insert-heading "### You")
                 (setq text-start (point-marker))
                 (insert (llmster--user-message-text message)))
        (setq llmster--last-reply (llmster--insert-saved-reply message text-start))
        (insert "\n\n")))
    (when (equal (alist-get 'role (car (last (alist-get 'messages answer)))) "user")
      ;; An unanswered last message (the send failed): regenerating answers it here.
      (setq llmster--last-reply (llmster--insert-saved-reply '((status . "unanswered")) text-start))
      (insert "\n\n"))
    (llmster--new-input-area)
    (llmster--propertize-in-background (marker-position llmster--input-start))
    (setq llmster--loaded-draft (or (alist-get 'draft conversation) ""))
    (insert llmster--loaded-draft)
    (llmster--show-context)
    (let ((last (car (last (alist-get 'messages answer)))))
      (llmster--show-meter (and last (alist-get 'modelInstanceId last)) (alist-get 'contextMeter answer)))))

(defun llmster--status-text (message)
  "Return the line that ends reply MESSAGE when it is not complete, or nil.
Its status and the saved reason: \"[incomplete: connection lost …]\".  An
open chat ends its replies with it too, so it reads as reopened."
  (let ((status (alist-get 'status message)) (error (alist-get 'error message)))
    (unless (equal status "complete")
      (format "\n[%s%s]" status (if (and (stringp error) (not (string-empty-p error)))
                                    (concat ": " (llmster--visible error))
                                  "")))))

(defun llmster--user-message-text (message)
  "How user MESSAGE is shown: its text, then its context items and images.
The same for a message just sent (drawn from what was typed) and a saved
one (from the library), so the open chat reads as the reopened one."
  (let ((chips (append (mapcar (lambda (item) (format "[context: %s]" (alist-get 'name item)))
                               (alist-get 'context message))
                       (mapcar (lambda (image) (format "[image: %s]" (if (stringp image) image (alist-get 'name image))))
                               (alist-get 'images message)))))
    (concat (alist-get 'text message) "\n\n"
            (if chips (concat (string-join chips "\n") "\n\n") ""))))

(defun llmster--insert-saved-reply (message text-start)
  "Insert the saved assistant MESSAGE at point; return it as a reply.
TEXT-START is where the message it answers starts.  The parts of
MESSAGE are its reasoning, text and tool calls in the server's order."
  (let ((start (point-marker)) body)
    (llmster--insert-heading "### Assistant")
    (setq body (point-marker))
    (let ((calls (alist-get 'toolCalls message)))
      (dolist (part (alist-get 'parts message))
        (let ((text (llmster--visible (or (alist-get 'text part) ""))) (index (alist-get 'index part)))
          (pcase (alist-get 'kind part)
            ("reasoning"
             (unless (memq (char-before) '(?\n nil)) (insert "\n"))
             (let ((from (point)))
               (insert text (if (string-suffix-p "\n" text) "" "\n"))
               (llmster--make-fold from (point) 'reasoning (alist-get 'reasoningLabel part))))
            ("text" (insert text))
            ("tool"
             (let ((call (and (natnump index) (nth index calls))))
               (when call
                 (llmster--insert-tool (point) `((name . ,(alist-get 'name call)) (arguments . ,(alist-get 'arguments call))
                                                 (status . ,(alist-get 'status call)) (output . ,(alist-get 'output call))
                                                 (reason . ,(alist-get 'failureReason call)))))))))))
    (insert (or (llmster--status-text message) ""))
    (llmster--make-reply :text-start text-start :start start :body body :end (point-marker) :message message)))

;;;; Sending (llmster-stream.el streams the reply in)

(defun llmster-send ()
  "Send the text below the last \"### You\" line and stream the reply."
  (interactive)
  (llmster--send-input nil))

(defun llmster--send-input (extra)
  "Send the input area's text as a new message, with chat/send parameters EXTRA."
  (llmster--require-chat)
  (when llmster--stream (user-error "A reply is still streaming; C-c C-k cancels it"))
  (let* ((typed (buffer-substring-no-properties llmster--input-start (point-max)))
         (text (string-trim typed)))
    (when (string-empty-p text) (user-error "Nothing to send: type below the last \"### You\" line"))
    (let ((new (null llmster--conversation-id)))
      ;; The conversation a preset chosen for this chat goes to is made before anything changes, so a preset that
      ;; fails (an unknown one) leaves the typed text, its items and the template as they were.
      (when (and new llmster--pending-preset)
        (setq llmster--conversation-id
              (alist-get 'id (llmster--request-sync "conversations/create"
                                                    `((preset . ,llmster--pending-preset) ,@llmster--pending-settings)))))
      ;; An edit that cannot leave (llmster does not start) fails before the exchange it replaces goes from view.
      (when llmster--edit-next (llmster--ensure-process))
      ;; An edit keeps the attachments of the message it replaces (llmster-rpc(7)): what is attached now waits for
      ;; the next message.
      (let ((params `((text . ,text)
                      ,@extra
                      ,@(when llmster--template-preset
                          (prog1 `((preset . ,llmster--template-preset))
                            (setq llmster--template-preset nil)))
                      ,@(when (and llmster--context (not llmster--edit-next))
                          `((context . ,(llmster--context-items))))
                      ,@(when (and llmster--images (not llmster--edit-next))
                          `((images . ,(vconcat llmster--images)))))))
        (if llmster--edit-next
            (llmster--send-edit text params)
          ;; The reply keeps the text as typed, blank lines and all: given back, it matches the undo records of
          ;; its typing.
          (llmster--start-reply typed params new))))))

(defun llmster-preview ()
  "Show the request the next send would make: the JSON llmster would post.
A dry run (gptel's, or codecompanion's debug window): nothing is sent or
saved.  The request has the typed text with the attached context, the
model, the settings and whether it continues the server context; images
show as their type and size.  A preset chosen for a chat that has no
conversation yet applies only once the first send makes it."
  (interactive)
  (llmster--require-chat)
  (let* ((text (string-trim (buffer-substring-no-properties llmster--input-start (point-max))))
         (answer (llmster--request-sync
                  "chat/preview"
                  `((text . ,text)
                    ,@(when llmster--context `((context . ,(llmster--context-items))))
                    ,@(when llmster--images `((images . ,(vconcat llmster--images))))
                    ,@(when llmster--conversation-id `((conversationId . ,llmster--conversation-id)))
                    ,@(when llmster--model `((model . ,llmster--model)))
                    ,@(when llmster--fresh-next '((freshContext . t)))
                    ,@(unless llmster--conversation-id llmster--pending-settings))))
         (buffer (get-buffer-create "*llmster request*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "%s %s%s\n\n%s\n" (alist-get 'method answer) (string-remove-suffix "/" (alist-get 'server answer))
                        (alist-get 'path answer) (alist-get 'text answer))))
      (special-mode)
      (goto-char (point-min)))
    (display-buffer buffer)
    buffer))

(defun llmster--start-reply (text params &optional new displaced)
  "Move the typed TEXT above a new reply and send PARAMS with this chat's settings.
The transcript shows the text sent (attached context included), as a
reopened chat does.  NEW says the send is the chat's first; DISPLACED is
an edit's (see `llmster--send-edit')."
  (let ((text-start (copy-marker llmster--input-start)))
    (let ((buffer-undo-list t) (inhibit-read-only t))
      (goto-char (point-max))
      (delete-region llmster--input-start (point-max))
      (insert (llmster--user-message-text
               `((text . ,(or (alist-get 'text params) text))
                 (context . ,(when (assq 'context params)
                               (mapcar (lambda (entry) `((name . ,(car entry)))) llmster--context)))
                 (images . ,(when (assq 'images params) (mapcar #'file-name-nondirectory llmster--images)))))))
    (llmster--open-reply params text-start text nil new displaced)))

(defun llmster--open-reply (params text-start text &optional reply-start new displaced)
  "Stream the reply to PARAMS into a new \"### Assistant\" section.
With REPLY-START, stream it there instead.
TEXT-START and TEXT are the message it answers, as shown and as typed.
NEW says the send is the chat's first.  DISPLACED is an edit's input
that `llmster-edit-last' displaced."
  (let* ((buffer (current-buffer))
         start body end)
    ;; Point stays where the user left it (a new send leaves it in the new input area).
    (let ((buffer-undo-list t) (inhibit-read-only t) (from-end (and (not reply-start) (= (point) (point-max)))))
      (save-excursion
        (if reply-start
            (goto-char reply-start)
          (goto-char (point-max)))
        (setq start (point-marker))
        (llmster--insert-heading "### Assistant")
        (setq body (point-marker))
        (unless reply-start
          (insert "\n\n")
          (llmster--new-input-area))
        (setq end (copy-marker body t)))
      (when from-end (goto-char (point-max))))
    (setq llmster--returned nil)
    (let* ((reply (llmster--make-reply :text-start text-start :start start :body body :end end :params params
                                       :started (float-time)
                                       :tools (make-hash-table) :new new :text text :in-place (and reply-start t)
                                       :displaced displaced
                                       :attached (cons (and (assq 'context params) (copy-sequence llmster--context))
                                                       (and (assq 'images params) (copy-sequence llmster--images)))))
           (indicator (make-overlay end end nil t t))
           (params `(,@params
                     ,@(when llmster--conversation-id `((conversationId . ,llmster--conversation-id)))
                     ,@(when llmster--model `((model . ,llmster--model)))
                     ,@(when (and llmster--fresh-next (not (assq 'freshContext params))) '((freshContext . t)))
                     ,@(when new llmster--pending-settings))))
      (setf (llmster--reply-indicator reply) indicator)
      (llmster--note-send reply)
      (setq llmster--stream reply)
      (llmster--set-indicator reply "waiting for the server")
      (setf (llmster--reply-id reply)
            (condition-case failure
                (llmster--request
                 "chat/send" params
                 (lambda (result error)
                   (setf (llmster--reply-answer reply) (cons result error))
                   (llmster--finish-reply buffer reply result error))
                 (lambda (event) (llmster--apply-event buffer reply event)))
              ((error quit)
               ;; The request never left (llmster could not be started, or C-g while it started): nothing was
               ;; saved, so it ends as llmster ends a refused send of its kind (a message goes back to the input
               ;; area; a retry or an edit gives way to the exchange the library kept), and the chat is not left waiting.
               (llmster--finish-reply buffer reply nil
                                      `((message . ,(error-message-string failure))
                                        (data (returned (kind . ,(cond ((assq 'retry params) "retry")
                                                                       ((assq 'edit params) "edit")
                                                                       (t "message")))))))
               (signal (car failure) (cdr failure)))))
      reply)))

(defun llmster--restore-template (reply)
  "Make the preset template REPLY's send filled wait for the next message again."
  (let ((preset (alist-get 'preset (llmster--reply-params reply))))
    (when preset (setq llmster--template-preset preset))))

(defun llmster--put-back-message (reply &optional typed)
  "Replace the exchange drawn for REPLY with its message, in the input area.
TYPED, text typed since the send, follows the message after a blank line.
Not an undo step.  Returns where the message starts."
  (let ((inhibit-read-only t)
        (buffer-undo-list t)
        (text-start (marker-position (llmster--reply-text-start reply))))
    (dolist (o (overlays-in text-start (point-max)))
      (when (>= (overlay-start o) text-start) (delete-overlay o)))
    (delete-region text-start (point-max))
    (goto-char text-start)
    (insert (llmster--reply-text reply))
    (when typed (insert "\n\n" typed))
    (set-marker llmster--input-start text-start)
    text-start))

(defun llmster--restore-prompt (reply error)
  "Put REPLY's typed text back in the input area after ERROR: nothing was saved.
The exchange drawn for the send goes; text typed since follows the message.
Context items and images stay attached for the next send.  After a first
send llmster removed the conversation it had made for it; one made
beforehand with a preset is deleted here, and the next try makes it again."
  (let* ((typed-start (marker-position llmster--input-start))
         (typed (buffer-substring-no-properties typed-start (point-max)))
         (keep (not (string-empty-p (string-trim typed))))
         (text-start (llmster--put-back-message reply (and keep typed))))
    ;; The user's undo records since the send follow the text they typed.
    (when keep
      (llmster--shift-undo reply typed-start
                           (- (+ text-start (length (llmster--reply-text reply)) 2) typed-start)))
    (llmster--drop-send-step reply))
  (llmster--restore-template reply)
  (when (llmster--reply-new reply)
    (when (and llmster--pending-preset llmster--conversation-id)
      (llmster--request "conversations/delete" `((id . ,llmster--conversation-id)) #'ignore))
    (setq llmster--conversation-id nil))
  (setq llmster--returned t)
  (llmster--show-context)
  (message "llmster: %s (your message is back in the input area)" (alist-get 'message error)))

(defun llmster--restore-exchange (buffer reply error)
  "Show BUFFER's last exchange as the library kept it after REPLY.
REPLY, a retry or an edit, saved nothing: ERROR handed it back.  An
edited message goes back to the input area, still to replace the last
message when sent; the input it displaced and text typed since come back
when the edit is left \(\\[llmster-cancel]).  The transcript is then drawn again from the
library, the answer asked again back in view, and what ERROR waits for
\(a fresh context, an overflow) is offered."
  (let ((edit (equal (alist-get 'kind (alist-get 'returned (alist-get 'data error))) "edit")))
    (if (not edit)
        (llmster--insert-at reply (llmster--reply-end reply) (format "\n[error: %s]" (alist-get 'message error)))
      (let ((typed (buffer-substring-no-properties llmster--input-start (point-max))))
        (llmster--put-back-message reply)
        (setq llmster--edit-next (llmster--joined-input (llmster--reply-displaced reply) typed)
              llmster--returned 'edit)
        (llmster--restore-template reply)
        (llmster--show-context)))
    (message "llmster: %s (%s)" (alist-get 'message error)
             (if edit
                 (substitute-command-keys "your edit is back in the input area: \\[llmster-send] sends it in place \
of the last message")
               "the last answer stays"))
    (run-at-time 0 nil #'llmster--redraw-kept buffer error)))

(defun llmster--joined-input (first second)
  "Unsent inputs FIRST and SECOND as one; a blank one gives way to the other."
  (cond ((string-empty-p (string-trim first)) second)
        ((string-empty-p (string-trim second)) first)
        (t (concat first "\n\n" second))))

(defun llmster--redraw-kept (buffer error)
  "Draw BUFFER again from the library, which kept its last exchange.
Then offer what ERROR's turn waits for."
  (when (and (buffer-live-p buffer) (not (buffer-local-value 'llmster--stream buffer)))
    (with-current-buffer buffer
      (condition-case failure
          (llmster--redraw)
        (error (message "llmster: %s" (error-message-string failure)))))
    (llmster--offer-decision buffer error)))

(defun llmster--offer-decision (buffer error)
  "Offer in BUFFER what ERROR's unsent turn waits for.
That is a fresh context, or how to send a message that would overflow."
  (let ((decision (alist-get 'decision (alist-get 'data error))))
    (pcase (alist-get 'type decision)
      ("fresh_context" (llmster--offer-fresh-context buffer (alist-get 'reason decision)))
      ("overflow" (llmster--offer-overflow buffer decision))
      ("choose_model" (llmster--offer-model buffer (append (alist-get 'candidates decision) nil))))))

(defun llmster--offer-model (buffer candidates)
  "Offer CANDIDATES, the server's chat models, to BUFFER's chat, which has none.
The chosen one becomes the chat's model and what came back is sent again:
the message in the input area, else the answer asked again.  Declined
\(\\[keyboard-quit]), the message stays in the input area."
  (when (and (buffer-live-p buffer) (not (buffer-local-value 'llmster--stream buffer)) candidates)
    (with-current-buffer buffer
      (let ((model (completing-read "No model is chosen for this chat; send it with: " candidates nil t)))
        (unless (string-empty-p model)
          (setq llmster--model model)
          (if llmster--returned
              (llmster--send-input nil)
            (llmster-regenerate)))))))

(defun llmster--name-after-title (buffer)
  "Name BUFFER after its conversation's title, once llmster has it."
  (let ((id (buffer-local-value 'llmster--conversation-id buffer)))
    (llmster--request "conversations/get" `((id . ,id))
                      (lambda (result _error)
                        (when (and result (buffer-live-p buffer))
                          (with-current-buffer buffer
                            (llmster--name-buffer (alist-get 'displayTitle (alist-get 'conversation result)))))))))

(defun llmster-cancel ()
  "Cancel the reply being streamed, or stop editing the last message.
llmster keeps what arrived, marked incomplete."
  (interactive)
  (cond (llmster--stream (llmster--cancel-request (llmster--reply-id llmster--stream)))
        (llmster--edit-next (llmster--leave-edit))
        (t (message "llmster: nothing is streaming"))))

;;;; Code blocks of a reply

(defun llmster--code-blocks ()
  "The code blocks of this chat's last reply, from the library (`codeBlocks')."
  (let ((message (and llmster--last-reply (llmster--reply-message llmster--last-reply))))
    (unless (and message (assq 'codeBlocks message))
      (setq message (and llmster--conversation-id
                         (cl-find "assistant" (alist-get 'messages (llmster--request-sync "conversations/get"
                                                                                          `((id . ,llmster--conversation-id))))
                                  :key (lambda (m) (alist-get 'role m)) :test #'equal :from-end t))))
    (alist-get 'codeBlocks message)))

(defun llmster--read-code-block (n)
  "Code block N (from 1) of the last reply; nil N asks when there are several."
  (llmster--require-chat)
  (let ((blocks (or (llmster--code-blocks) (user-error "The last reply has no code block"))))
    (unless n
      (setq n (if (cdr blocks)
                  (let ((labels (cl-loop for block in blocks for i from 1
                                         collect (format "%d  %s" i (truncate-string-to-width
                                                                     (replace-regexp-in-string "[ \t\n]+" " " (string-trim block))
                                                                     60 nil nil "…")))))
                    (string-to-number (completing-read "Code block: " labels nil t)))
                1)))
    (or (nth (1- n) blocks)
        (user-error "The last reply has %d code block%s" (length blocks) (if (cdr blocks) "s" "")))))

(defun llmster-copy-code-block (&optional n)
  "Copy code block N of the last reply to the kill ring.
N is a prefix argument, else asked when the reply has several.
codecompanion's `gy' does the same.  The blocks are the library's, without
their fences."
  (interactive "P")
  (let ((block (llmster--read-code-block (and n (prefix-numeric-value n)))))
    (kill-new block)
    (message "llmster: code block copied (%d line%s)" (length (split-string (string-trim-right block) "\n"))
             (if (string-match-p "\n." (string-trim-right block)) "s" ""))
    block))

(defun llmster-insert-code-block (&optional n buffer)
  "Insert code block N of the last reply at point in BUFFER.
N is a prefix argument, else asked; BUFFER is the buffer shown in the
window most recently used besides the chat's, else the one before it."
  (interactive "P")
  (let* ((block (llmster--read-code-block (and n (prefix-numeric-value n))))
         (window (get-mru-window nil t t))
         (target (or buffer (and window (window-buffer window)) (other-buffer (current-buffer) t))))
    (if window
        (with-selected-window window (with-current-buffer target (insert block)))
      (with-current-buffer target (insert block)))
    (message "llmster: code block inserted in %s" (buffer-name target))
    block))

;;;; Server profiles

(defun llmster-switch-server (server)
  "Talk to SERVER, a configured profile's name or an http(s) URL, from now on.
The REPL's /server does the same; a reply already streaming finishes where
it started.  Interactively the profiles are offered, the one in use marked."
  (interactive
   (let* ((answer (progn (llmster--ensure-process) (llmster--request-sync "servers/list")))
          (servers (alist-get 'servers answer))
          (names (mapcar (lambda (s) (alist-get 'name s)) servers))
          (completion-extra-properties
           `(:annotation-function
             ,(llmster--aligned names (lambda (name)
                                        (let ((entry (cl-find name servers :key (lambda (s) (alist-get 'name s)) :test #'equal)))
                                          (format "  %s%s" (alist-get 'url entry)
                                                  (if (equal name (alist-get 'currentProfile answer)) "  (in use)" ""))))))))
     (unless servers (user-error "No server profiles: add lines such as \"server.rig = http://rig.local:1234\" to llmster's config"))
     (list (completing-read (format "Server (in use: %s): " (or (alist-get 'currentProfile answer) (alist-get 'current answer)))
                            names))))
  (llmster--ensure-process)
  (let ((answer (llmster--request-sync "servers/use" `((server . ,server)))))
    (message "llmster: now using %s" (string-join (delq nil (list (alist-get 'currentProfile answer)
                                                                   (format "(%s)" (alist-get 'current answer))))
                                                  " "))
    answer))

;;;; Mode line: model and context use

(defun llmster--show-meter (instance meter)
  "Show model INSTANCE and rpc's context METER (its `label') in the mode line.
Without a meter the mode line keeps what it showed."
  (when meter
    (setq llmster--usage (format " [%s]" (string-join (delq nil (list instance (alist-get 'label meter))) " ")))
    (force-mode-line-update)))

;;;; Regenerate, edit, fresh context

(defun llmster--shown-message-id (reply)
  "Return the id of the user message REPLY answers, or nil when not known.
An edit or a regenerate names it (chat/send `lastMessageId'), so a message
another client sent meanwhile is not the one replaced or asked again."
  (and reply (alist-get 'parentId (llmster--reply-message reply))))

(defun llmster--reuse-last-reply (params)
  "Stream a new answer to PARAMS in place of the last reply.
Removing the last reply can be undone: it comes back with its folds.  The
message it answers is named, so a message sent since from elsewhere is not
the one asked again."
  (llmster--require-chat)
  (when llmster--stream (user-error "A reply is still streaming; C-c C-k cancels it"))
  (unless (and llmster--conversation-id llmster--last-reply) (user-error "No reply to answer again yet"))
  ;; A retry that cannot leave (llmster does not start) fails before the answer it replaces goes from view.
  (llmster--ensure-process)
  (let* ((last llmster--last-reply)
         (start (marker-position (llmster--reply-start last)))
         (shown (llmster--shown-message-id last))
         (params (if shown `(,@params (lastMessageId . ,shown)) params)))
    ;; Undone, the reply taken away is the last one again, folds and all.
    (when (listp buffer-undo-list) (push (list 'apply #'llmster--set-last-reply last) buffer-undo-list))
    (llmster--drop-overlays start (llmster--reply-end last))
    (let ((inhibit-read-only t)) (delete-region start (llmster--reply-end last)))
    (llmster--open-reply params (llmster--reply-text-start last) (llmster--reply-text last) start)))

(defun llmster-regenerate ()
  "Ask again: replace the last reply with a new answer to the last message.
The old answer stays in the library as an alternative."
  (interactive)
  (llmster--reuse-last-reply '((retry . t))))

(defun llmster-fresh-context (&optional recap)
  "Send the message again in a fresh server context.
For when LM Studio lost the conversation's context (it restarted): the model
no longer remembers the earlier turns, the library still has them.  A send
that found the context lost saved nothing and put its message back in the
input area: this sends it again, as a new message, with the context items
still attached (an edit handed back so goes again as the edit).  Otherwise
it answers the last message again, in place.
With RECAP (interactively, a prefix argument) the fresh context starts with
a recap of the earlier turns: their transcript when it fits the model's
context, else a summary."
  (interactive "P")
  (let ((fresh `((freshContext . ,(if recap "recap" t)))))
    (if (and llmster--returned
             (not (string-empty-p (string-trim (buffer-substring-no-properties llmster--input-start (point-max))))))
        (llmster--send-input fresh)
      (llmster--reuse-last-reply `((retry . t) ,@fresh)))))

(defun llmster-fresh-context-with-recap ()
  "Send the message again, in a fresh context beginning with a recap."
  (interactive)
  (llmster-fresh-context t))

(defun llmster--offer-fresh-context (buffer &optional reason)
  "Offer a fresh context, after BUFFER's send lost its context.
A new message came back to the input area: the offer sends it again;
declined, it stays there.  An answer asked again is asked again.
REASON is rpc's: \"continuation_lost\" (the default) or
\"continuation_elsewhere\" (another server holds the context)."
  (when (and (buffer-live-p buffer) (not (buffer-local-value 'llmster--stream buffer)))
    (with-current-buffer buffer
      (pcase (car (read-multiple-choice
                   (concat (if (equal reason "continuation_elsewhere")
                               "Another server holds this chat's context.  "
                             "LM Studio no longer has this chat's context.  ")
                           (if llmster--returned "Send your message in a fresh one" "Answer again in a fresh one"))
                   `((?r "recap" "the fresh context starts with a recap of the earlier turns")
                     (?e "empty" "the model forgets the earlier turns")
                     (?n "not now" ,(if llmster--returned
                                        "the message stays in the input area; M-x llmster-fresh-context sends it"
                                      "M-x llmster-fresh-context answers later")))))
        (?r (llmster-fresh-context t))
        (?e (llmster-fresh-context))))))

(defun llmster--offer-overflow (buffer decision)
  "Offer what to do with BUFFER's message that would fill the context.
DECISION is rpc's: its figures, the larger context a reload gives and the
choices.  The message is back in the input area: a choice sends it again
that way; declined, it stays there."
  (when (and (buffer-live-p buffer) (not (buffer-local-value 'llmster--stream buffer)))
    (with-current-buffer buffer
      (let* ((choices (append (alist-get 'choices decision) nil))
             (options (delq nil (list (when (member "grow" choices)
                                        (list ?g "grow" (format "reload %s with a %s-token context"
                                                                (alist-get 'model decision) (alist-get 'growTo decision))))
                                      (when (member "recap" choices)
                                        (list ?r "recap" (format "a fresh context that starts with a recap (%s)"
                                                                 (alist-get 'recap decision))))
                                      (list ?s "send" "send it as it is")
                                      (list ?n "not now" "the message stays in the input area"))))
             (answer (car (read-multiple-choice
                           (format "This message would fill the context (%s)" (alist-get 'label decision)) options))))
        (pcase answer
          (?g (llmster--send-input '((onOverflow . "grow"))))
          (?r (llmster--send-input '((onOverflow . "recap"))))
          (?s (llmster--send-input '((onOverflow . "send")))))))))

(defun llmster-edit-last ()
  "Put the last message in the input area, for the next send to replace it.
The original and its answer stay in the library as an alternative.  Text
the input area held comes back when the edit is left, or once the edit is
sent and saved (before anything typed while its reply streamed)."
  (interactive)
  (llmster--require-chat)
  (when llmster--stream (user-error "A reply is still streaming; C-c C-k cancels it"))
  (unless (and llmster--conversation-id llmster--last-reply) (user-error "No message to edit yet"))
  (let ((text (llmster--reply-text llmster--last-reply))
        (typed (buffer-substring-no-properties llmster--input-start (point-max))))
    (unless text
      ;; A chat drawn from the library (reopened, or drawn again): the message as the library holds it, since the
      ;; transcript shows its context items and images after its text.
      (let* ((conversation (llmster--request-sync "conversations/get" `((id . ,llmster--conversation-id))))
             (sent (seq-filter (lambda (message) (equal (alist-get 'role message) "user"))
                               (alist-get 'messages conversation))))
        (setq text (alist-get 'text (car (last sent)))))
      (unless (stringp text) (user-error "No message to edit yet")))
    (unless (or llmster--edit-next (string-empty-p (string-trim typed))
                (y-or-n-p "Replace the unsent text with the last message? "))
      (user-error "The unsent text stays; send it or clear it first"))
    (delete-region llmster--input-start (point-max))
    (goto-char llmster--input-start)
    (insert (string-trim text))
    ;; In the same undo step as the text: undone, the input is as it was and no longer an edit.
    (llmster--set-edit (or llmster--edit-next typed)
                       (if llmster--edit-next llmster--edit-of (llmster--shown-message-id llmster--last-reply))
                       llmster--returned)
    (message "llmster: edit the message, then %s sends it in place of the last one (%s leaves)"
             (substitute-command-keys "\\[llmster-send]") (substitute-command-keys "\\[llmster-cancel]"))))

(defun llmster--set-edit (displaced of &optional returned)
  "Make the next send replace the last message, as an undo record.
DISPLACED is the input the edit set aside (`llmster--edit-next'), or nil
for no edit: the next send is a new message.  OF is the id of the message
it replaces, when known (`llmster--edit-of').  RETURNED is the new value
of `llmster--returned'.  Undone, the chat edits what it edited before, or
nothing, and its header line says so."
  (when (listp buffer-undo-list)
    (push (list 'apply #'llmster--set-edit llmster--edit-next llmster--edit-of llmster--returned) buffer-undo-list))
  (setq llmster--edit-next displaced
        llmster--edit-of (and displaced of)
        llmster--returned returned)
  (llmster--show-context))

(defun llmster--leave-edit ()
  "Stop editing the last message: the input it displaced comes back.
Undone, the edit is back in the input area, still editing."
  (let ((typed llmster--edit-next))
    (llmster--set-edit nil nil (unless (eq llmster--returned 'edit) llmster--returned))
    (delete-region llmster--input-start (point-max))
    (goto-char llmster--input-start)
    (insert typed)
    (llmster--show-context)
    (message "llmster: the next send is a new message again")))

(defun llmster--send-edit (text params)
  "Replace the last exchange with TEXT and its new answer, sent with PARAMS.
The input that `llmster-edit-last' displaced goes with the reply, to come
back should the edit be handed back.  The exchange replaced and the send
are one undo step, which leaves the chat as before the send, still
editing (see `llmster--note-send')."
  (let* ((last llmster--last-reply)
         (text-start (marker-position (llmster--reply-text-start last)))
         (displaced llmster--edit-next)
         (params (if llmster--edit-of `(,@params (lastMessageId . ,llmster--edit-of)) params)))
    ;; Not an undo record: the send's own record, undone, edits again the message the library then holds.
    (setq llmster--edit-next nil llmster--edit-of nil)
    (llmster--show-context)
    (llmster--drop-overlays text-start (point-max))
    (let ((inhibit-read-only t))
      (delete-region text-start (point-max))
      (goto-char text-start))
    (set-marker llmster--input-start text-start)
    (insert text)
    (llmster--start-reply text `(,@params (edit . t)) nil displaced)))

;;;; Alternatives: the other answers to a message, and its other versions

(defun llmster--alternative-label (message index current)
  "The line of alternative MESSAGE, number INDEX (0-based).
CURRENT is the index of the alternative shown."
  (format "%d%s %s" (1+ index) (if (eql index current) "*" " ")
          (truncate-string-to-width
           (replace-regexp-in-string "[ \t\n]+" " " (string-trim (or (alist-get 'text message) "")))
           72 nil nil "…")))

(defun llmster--alternatives-of (messages versions)
  "The conversations/alternatives answer to choose from, among MESSAGES.
The last message's alternatives, else (or with VERSIONS) the versions
of the last user message."
  (let* ((last-user (cl-find "user" messages :key (lambda (m) (alist-get 'role m)) :test #'equal :from-end t))
         (candidates (delq nil (if versions (list last-user) (list (car (last messages)) last-user)))))
    (cl-loop for message in candidates
             for answer = (llmster--request-sync "conversations/alternatives"
                                                 `((conversationId . ,llmster--conversation-id)
                                                   (messageId . ,(alist-get 'id message))))
             when (cdr (alist-get 'alternatives answer)) return answer)))

(defun llmster-choose-alternative (&optional versions)
  "Show another answer to the last message, chosen among those regenerating made.
When the last answer has none, or with prefix argument VERSIONS, choose among
the versions of the last message that editing made.  The chat continues from
the chosen one."
  (interactive "P")
  (llmster--require-chat)
  (when llmster--stream (user-error "A reply is still streaming; C-c C-k cancels it"))
  (unless llmster--conversation-id (user-error "No reply yet"))
  (let* ((messages (alist-get 'messages (llmster--request-sync "conversations/get" `((id . ,llmster--conversation-id)))))
         (answer (or (llmster--alternatives-of messages versions)
                     (user-error "No alternatives yet: %s asks again, %s edits the last message"
                                 (substitute-command-keys "\\[llmster-regenerate]")
                                 (substitute-command-keys "\\[llmster-edit-last]"))))
         (labels (cl-loop for message in (alist-get 'alternatives answer) for index from 0
                          collect (cons (llmster--alternative-label message index (alist-get 'current answer)) message)))
         (completion-extra-properties '(:display-sort-function identity))
         (choice (cdr (assoc (completing-read "Alternative: " labels nil t) labels))))
    (llmster--request-sync "conversations/chooseAlternative" `((messageId . ,(alist-get 'id choice))))
    (llmster--redraw)))

(defvar llmster-redraw-delay 0.3
  "Seconds a chat changed elsewhere waits for more notices before it is drawn.")

(defvar llmster-redraw-stale-seconds 5
  "Seconds without a notice before a reply streaming elsewhere is drawn as it is.
That process may have stopped, leaving the reply streaming in the library.")

(defvar-local llmster--redraw-timer nil
  "The timer that draws this chat again after notices that it changed elsewhere.")

(defun llmster--on-notification (method params)
  "Follow llmster's notification METHOD with PARAMS in the chat buffers.
On conversation/changed (another process -- the REPL, `llmster ask -c',
another editor -- changed a conversation) its open chat is drawn again
from the library, keeping the unsent input, once: the notices of one
send (its message, then a save each second or so of its reply) are
drawn together when that reply ends.  While a reply streams in the chat,
it says so (once) and is drawn again once the reply ends."
  (when (equal method "conversation/changed")
    (dolist (buffer (buffer-list))
      (when (and (llmster--chat-buffer-p buffer)
                 (equal (buffer-local-value 'llmster--conversation-id buffer) (alist-get 'conversationId params)))
        (with-current-buffer buffer
          (if llmster--stream
              (unless llmster--changed-elsewhere
                (setq llmster--changed-elsewhere t)
                (message "llmster: %s changed elsewhere; it is drawn again when this reply ends" (buffer-name)))
            ;; Not from the process filter: drawing asks llmster for the conversation.
            (llmster--schedule-redraw buffer llmster-redraw-delay)))))))

(add-hook 'llmster--notification-functions #'llmster--on-notification)

(defun llmster--schedule-redraw (buffer delay &optional stale)
  "Draw BUFFER again after DELAY seconds, in place of a drawing already due.
With STALE, a reply still streaming elsewhere is drawn as it is."
  (with-current-buffer buffer
    (when (timerp llmster--redraw-timer) (cancel-timer llmster--redraw-timer))
    (setq llmster--redraw-timer (run-at-time delay nil #'llmster--redraw-changed buffer stale))))

(defun llmster--redraw-changed (buffer &optional stale)
  "Draw chat BUFFER again from the library: its conversation changed elsewhere.
While the library's last reply streams elsewhere, and not STALE, it waits
for that reply's end (the notice of its last save)."
  (when (and (buffer-live-p buffer) (not (buffer-local-value 'llmster--stream buffer)))
    (with-current-buffer buffer
      (when (timerp llmster--redraw-timer) (cancel-timer llmster--redraw-timer))
      (setq llmster--redraw-timer nil)
      (condition-case err
          (let* ((answer (llmster--request-sync "conversations/get" `((id . ,llmster--conversation-id) (open . t))))
                 (last (car (last (alist-get 'messages answer)))))
            (cond ((and (not stale) (equal (alist-get 'status last) "streaming"))
                   (llmster--schedule-redraw buffer llmster-redraw-stale-seconds t))
                  ;; A notice after the burst (the last save's bookkeeping) changed no message drawn.
                  ((equal (alist-get 'messages answer) llmster--drawn-messages)
                   (setq llmster--changed-elsewhere nil))
                  (t (setq llmster--changed-elsewhere nil)
                     (llmster--redraw answer)
                     (message "llmster: %s changed elsewhere: drawn again from the library" (buffer-name)))))
        (error (message "llmster: %s changed elsewhere: %s" (buffer-name) (error-message-string err)))))))

(defun llmster--redraw (&optional answer)
  "Show this chat's conversation again from the library, keeping the unsent input.
ANSWER is conversations/get's, when it was asked already.
An input still as the library's draft was loaded follows the draft: a
draft sent (or changed) from another client leaves this input too.  An
input that stays keeps the draft it showed as `llmster--loaded-draft', not
the library's new one, so closing the chat leaves that one alone.
The transcript changed under the buffer, so its undo history starts afresh."
  (let* ((input (buffer-substring llmster--input-start (point-max)))
         (loaded llmster--loaded-draft)
         (untouched (and loaded (not (string-empty-p loaded))
                         (equal (substring-no-properties input) loaded)))
         (inhibit-read-only t))
    (remove-overlays)
    (llmster--fill-transcript llmster--conversation-id answer)
    (unless (and untouched (not (equal llmster--loaded-draft loaded)))
      (setq llmster--loaded-draft loaded)
      (delete-region llmster--input-start (point-max))
      (goto-char (point-max))
      (insert input))
    (setq buffer-undo-list nil)))

;;;; Settings: system prompt, reasoning effort

(defun llmster--note-fresh-context (answer)
  "Make the next send start a fresh server context if ANSWER asks for one.
A new system prompt needs one after the conversation's first reply."
  (when (eq (alist-get 'needsFreshContext answer) t)
    (setq llmster--fresh-next t)
    (message "llmster: the next message starts a fresh server context (the model forgets earlier turns)")))

(defun llmster--set-setting (param settings)
  "Save chat/send PARAM now, or SETTINGS of the conversation when it exists."
  (if llmster--conversation-id
      (llmster--note-fresh-context
       (llmster--request-sync "conversations/setSettings"
                              `((conversationId . ,llmster--conversation-id) ,@settings)))
    (setf (alist-get (car param) llmster--pending-settings) (cdr param))))

(defun llmster-set-system-prompt (prompt)
  "Make PROMPT this chat's system prompt (empty: none)."
  (interactive (list (read-string "System prompt (empty: none): ")))
  (llmster--require-chat)
  (llmster--set-setting (cons 'systemPrompt prompt) `((systemPrompt . ,prompt))))

(defun llmster-set-reasoning (effort)
  "Set how much the model reasons, EFFORT, for this chat (\"default\" clears it)."
  (interactive (list (completing-read "Reasoning effort: " '("off" "low" "medium" "high" "on" "default") nil t)))
  (llmster--require-chat)
  (llmster--set-setting (cons 'reasoning effort) `((settings (reasoning . ,effort)))))

;;;; Integrations: the MCP servers and LM Studio plugins a chat may use

(defun llmster-set-integrations (names)
  "Let this chat use the configured integrations NAMES (nil: none).
The REPL's /integrations does the same.  Integrations are the
`integration.NAME' lines of llmster's config: MCP servers and LM Studio
plugins.  Interactively they are chosen among the configured ones,
separated by commas."
  (interactive
   (progn
     (llmster--require-chat)
     (let ((configured (mapcar (lambda (i) (alist-get 'name i)) (alist-get 'integrations (llmster--request-sync "integrations/list")))))
       (unless configured (user-error "No integrations: add lines such as \"integration.NAME = mcp/playwright\" to llmster's config"))
       (list (completing-read-multiple "Integrations (comma-separated, empty: none): " configured nil t
                                       (string-join (llmster--integrations) ","))))))
  (llmster--require-chat)
  (if (not llmster--conversation-id)
      (progn (setf (alist-get 'integrations llmster--pending-settings) (vconcat names))
             (message "llmster: integrations %s from the first message" (if names (string-join names ", ") "off")))
    (let ((answer (llmster--request-sync "conversations/setIntegrations"
                                         `((conversationId . ,llmster--conversation-id) (integrations . ,(vconcat names))))))
      (message "llmster: integrations %s%s" (if names (string-join names ", ") "off")
               (let ((notice (alist-get 'notice answer))) (if notice (concat " (" notice ")") ""))))))

(defun llmster--integrations ()
  "The integrations this chat may use."
  (if llmster--conversation-id
      (alist-get 'integrations (alist-get 'conversation (llmster--request-sync "conversations/get" `((id . ,llmster--conversation-id)))))
    (append (alist-get 'integrations llmster--pending-settings) nil)))

;;;; Presets: the REPL's named system prompts, models and settings

(defun llmster--read-preset (prompt)
  "Read a configured preset's name with PROMPT, each shown with its summary."
  (llmster--ensure-process)
  (let* ((presets (alist-get 'presets (llmster--request-sync "presets/list")))
         (summaries (mapcar (lambda (preset) (cons (alist-get 'name preset) (alist-get 'summary preset))) presets))
         (completion-extra-properties
          `(:annotation-function ,(llmster--aligned (mapcar #'car summaries)
                                                     (lambda (name) (concat "  " (cdr (assoc name summaries))))))))
    (unless presets
      (user-error "No presets: add lines such as \"preset.NAME.system = …\" to llmster's config"))
    (completing-read prompt summaries nil t)))

;;;###autoload
(defun llmster-reload-config ()
  "Make llmster read its configuration file again.
Presets, the default model and the load policy take effect; llmster also
reads the file again on its own when it changed and no reply streams.
Return the presets."
  (interactive)
  (llmster--ensure-process)
  (let ((presets (alist-get 'presets (llmster--request-sync "config/reload"))))
    (message "llmster: configuration read again (%d preset%s)" (length presets) (if (= (length presets) 1) "" "s"))
    presets))

;;;###autoload
(defun llmster-new-chat-with-preset (preset)
  "Open a new chat with PRESET's system prompt, model and settings."
  (interactive (list (llmster--read-preset "New chat with preset: ")))
  (let ((llmster-default-preset preset))
    (llmster)))

(defun llmster--preset-template-p (preset)
  "Return whether PRESET has a template (preset.NAME.template), from presets/list."
  (let ((found (cl-find preset (alist-get 'presets (llmster--request-sync "presets/list" nil))
                        :key (lambda (entry) (alist-get 'name entry)) :test #'equal)))
    (and (alist-get 'template found) t)))

(defun llmster-apply-preset (preset)
  "Give this chat PRESET's system prompt, model and settings.
A preset with a template fills the next message with it.  The REPL's
/preset does the same."
  (interactive (progn (llmster--require-chat) (list (llmster--read-preset "Apply preset: "))))
  (llmster--require-chat)
  (when (llmster--preset-template-p preset)
    (setq llmster--template-preset preset)
    (message "llmster: preset %s's template fills the next message" preset))
  (if (not llmster--conversation-id)
      (progn (setq llmster--pending-preset preset)
             (message "llmster: preset %s applies from the first message" preset))
    (let ((answer (llmster--request-sync "presets/apply" `((conversationId . ,llmster--conversation-id)
                                                            (name . ,preset)))))
      ;; The preset's model, when it has one, is now the conversation's: the next send keeps it.
      (setq llmster--model (or (alist-get 'modelKey answer) llmster--model))
      (message "llmster: preset %s applied" preset)
      (llmster--note-fresh-context answer))))

(defun llmster--show-context ()
  "Show in the header line what the next send does besides sending.
That is: the attached buffers and files go with it, or it replaces the
last message; and, for a fork, where it came from.  Without any of
these, there is no header line."
  (setq header-line-format
        (let ((parts (delq nil (list (when llmster--forked-from
                                       (format "Fork of \"%s\" at reply %d"
                                               (alist-get 'displayTitle llmster--forked-from)
                                               (alist-get 'reply llmster--forked-from)))
                                     (when llmster--edit-next
                                       (substitute-command-keys
                                        "Editing the last message (\\[llmster-send] replaces it, \\[llmster-cancel] leaves)"))
                                     (when llmster--context
                                       (format "Context: %s" (mapconcat #'car llmster--context ", ")))
                                     (when llmster--images
                                       (format "Images: %s" (mapconcat #'file-name-nondirectory llmster--images ", ")))
                                     (when llmster--progress
                                       (concat (capitalize (substring llmster--progress 0 1))
                                               (substring llmster--progress 1)))))))
          (when parts (concat " " (string-join parts "; ")))))
  (force-mode-line-update))


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
  (let* ((models (cl-remove-if-not (lambda (m) (eq (alist-get 'canChat m) t)) (llmster-models)))
         (table (mapcar (lambda (m) (cons (alist-get 'key m) m)) models))
         (choice (completing-read
                  "Model: "
                  (lambda (string predicate action)
                    (if (eq action 'metadata)
                        `(metadata (annotation-function
                                    . ,(llmster--aligned (mapcar #'car table)
                                                         (lambda (key) (llmster--model-annotation (cdr (assoc key table)))))))
                      (complete-with-action action table string predicate)))
                  nil t)))
    (llmster--select-model choice llmster--model)
    (setq llmster--model choice)
    choice))

(defun llmster--select-model (key previous)
  "Make KEY this chat's model now, loading it under llmster's load policy.
The previous chat model (PREVIOUS, chosen before the first message, or the
conversation's) is unloaded, as the REPL's /model does; the mode line shows
each step."
  (let ((buffer (current-buffer)))
    (cl-flet ((show (text) (when (buffer-live-p buffer)
                             (with-current-buffer buffer
                               (setq llmster--usage (format " [%s]" text))
                               (force-mode-line-update)))))
      (show (format "%s: selecting…" key))
      (llmster--request (if llmster--conversation-id "models/select" "models/selectPending")
                        (if llmster--conversation-id
                            `((conversationId . ,llmster--conversation-id) (model . ,key))
                          `((model . ,key) ,@(when previous `((previous . ,previous)))))
                        (lambda (result error)
                          (if error
                              (progn (show (format "%s: %s" key (alist-get 'message error)))
                                     (message "llmster: %s" (alist-get 'message error)))
                            (let ((seconds (alist-get 'loadTimeSeconds result)))
                              (show (string-join (delq nil (list (alist-get 'instanceId result)
                                                                 (alist-get 'label (alist-get 'contextMeter result))))
                                                 " "))
                              (message "llmster: %s is ready%s" key
                                       (if seconds (format " (loaded in %.1f s)" seconds) "")))))
                        (lambda (progress)
                          (show (pcase (alist-get 'type progress)
                                  ("unloaded" (format "%s: unloaded %s" key (alist-get 'instanceId progress)))
                                  ("loading" (format "%s: loading…" key))
                                  (_ (format "%s: loaded" key)))))))))

(provide 'llmster)
;;; llmster.el ends here
