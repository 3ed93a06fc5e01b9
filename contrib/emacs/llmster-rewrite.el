;;; llmster-rewrite.el --- Rewrite a region with a model, shown as a diff  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; `llmster-rewrite' replaces a region with the model's rewrite of it, once accepted in a diff.

;;; Code:

(require 'diff)
(require 'llmster)
(require 'llmster-context)
(require 'llmster-library)

(defcustom llmster-rewrite-folder "Rewrites"
  "The library folder that keeps accepted rewrites (nil: the top level).
A rejected or cancelled rewrite is deleted from the library."
  :type '(choice (const :tag "Top level" nil) string)
  :group 'llmster)

(defcustom llmster-rewrite-model nil
  "The model `llmster-rewrite' asks (a key), or nil for llmster's default model."
  :type '(choice (const :tag "Default model" nil) string)
  :group 'llmster)

(defvar-local llmster--rewrite nil
  "In a rewrite diff buffer: (SOURCE START END NEW-TEXT CONVERSATION-ID).
SOURCE is the buffer rewritten, START and END markers.")

(defvar llmster--pending-rewrite nil
  "The rewrite being asked for: (REQUEST-ID . SOURCE-BUFFER), or nil.")

(defvar llmster-rewrite-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'llmster-rewrite-accept)
    (define-key map (kbd "C-c C-k") #'llmster-rewrite-reject)
    map)
  "Keys of `llmster-rewrite-mode'.")

(define-minor-mode llmster-rewrite-mode
  "A proposed rewrite, shown as a diff: \\[llmster-rewrite-accept] accepts, \\[llmster-rewrite-reject] rejects."
  :lighter " llmster-rewrite")

(defun llmster--answer-code (message)
  "Return the first code block of MESSAGE, or its text without one.
The blocks are rpc's codeBlocks, found by the renderer's one rule."
  (let ((blocks (alist-get 'codeBlocks message)))
    (if blocks (concat (car blocks) "\n") (alist-get 'text message))))

;;;###autoload
(defun llmster-rewrite (start end instruction)
  "Replace the region START to END by the model's rewrite following INSTRUCTION.
The answer is shown as a diff to accept (\\[llmster-rewrite-accept]) or
reject (\\[llmster-rewrite-reject]); `llmster-rewrite-cancel' stops one
still being written.  An accepted rewrite stays in the library, in
`llmster-rewrite-folder'; the model is `llmster-rewrite-model'."
  (interactive (list (region-beginning) (region-end) (read-string "Rewrite instruction: ")))
  (when llmster--pending-rewrite (user-error "A rewrite is being written; M-x llmster-rewrite-cancel stops it"))
  (llmster--ensure-process)
  (let* ((source (current-buffer))
         (from (copy-marker start)) (to (copy-marker end t))
         (text (concat "Rewrite the following text as the instruction says.  Answer with only the rewritten text, "
                       "in one fenced block.\n\n"
                       (llmster--region-text start end (concat "Instruction: " instruction))))
         (params `((text . ,text)
                   ,@(when llmster-rewrite-model `((model . ,llmster-rewrite-model)))
                   ,@(when llmster-rewrite-folder `((folderId . ,(llmster--folder-id llmster-rewrite-folder))))))
         (id (llmster--request
              "chat/send" params
              (lambda (result error)
                (setq llmster--pending-rewrite nil)
                (let ((conversation (alist-get 'conversationId result)))
                  (cond ((equal (llmster--error-kind error) "cancelled") (message "llmster: the rewrite was cancelled"))
                        (error (message "llmster: the rewrite failed: %s" (alist-get 'message error)))
                        ((not (equal (alist-get 'status result) "complete"))
                         (llmster--request "conversations/delete" `((id . ,conversation)) #'ignore)
                         (message "llmster: the rewrite was %s" (if (eq (alist-get 'cancelled result) t) "cancelled"
                                                                   (alist-get 'status result))))
                        (t (llmster--show-rewrite source from to
                                                  (llmster--answer-code (alist-get 'message result))
                                                  conversation))))))))
    (setq llmster--pending-rewrite (cons id source))
    (message "llmster: rewriting… (M-x llmster-rewrite-cancel stops it)")))

(defun llmster-rewrite-cancel ()
  "Stop the rewrite being written, leaving the text as it is."
  (interactive)
  (if llmster--pending-rewrite
      (llmster--cancel-request (car llmster--pending-rewrite))
    (message "llmster: no rewrite is being written")))

(defun llmster--show-rewrite (source start end new-text conversation)
  "Show the rewrite of START to END in SOURCE as NEW-TEXT, from CONVERSATION.
It is shown as a diff to accept or reject."
  (when (buffer-live-p source)
    (let ((old (generate-new-buffer " *llmster-old*"))
          (new (generate-new-buffer " *llmster-new*"))
          (diff (get-buffer-create "*llmster rewrite*"))
          (name (llmster--source-name source)))
      (with-current-buffer old (insert-buffer-substring source start end))
      ;; The answer ends as the region does: with a line end or without one.
      (setq new-text (if (with-current-buffer old (eq (char-before (point-max)) ?\n))
                         (if (string-suffix-p "\n" new-text) new-text (concat new-text "\n"))
                       (string-remove-suffix "\n" new-text)))
      (with-current-buffer new (insert new-text))
      (unwind-protect
          (diff-no-select old new "-u" t diff)
        (kill-buffer old)
        (kill-buffer new))
      (with-current-buffer diff
        ;; The diff command line and its end note name temporary files, not the user's.
        (let ((inhibit-read-only t))
          (goto-char (point-min))
          (when (looking-at "diff .*\n") (delete-region (match-beginning 0) (match-end 0)))
          (when (looking-at "--- .*$") (replace-match (concat "--- " name " (now)") t t))
          (forward-line 1)
          (when (looking-at "\\+\\+\\+ .*$") (replace-match (concat "+++ " name " (rewritten)") t t))
          ;; diff numbers the region's lines from 1: number them as the file's.
          (let ((offset (1- (with-current-buffer source (save-restriction (widen) (line-number-at-pos start))))))
            (while (re-search-forward "^@@ -\\([0-9]+\\)\\(,[0-9]+\\)? \\+\\([0-9]+\\)\\(,[0-9]+\\)? @@" nil t)
              (replace-match (number-to-string (+ offset (string-to-number (match-string 3)))) t t nil 3)
              (replace-match (number-to-string (+ offset (string-to-number (match-string 1)))) t t nil 1)))
          (goto-char (point-max))
          (when (re-search-backward "^\nDiff finished.*\n?\\'" nil t) (delete-region (match-beginning 0) (point-max))))
        (llmster-rewrite-mode 1)
        (setq llmster--rewrite (list source start end new-text conversation))
        (setq header-line-format (substitute-command-keys
                                  "Rewrite: \\[llmster-rewrite-accept] accepts, \\[llmster-rewrite-reject] rejects")))
      (display-buffer diff)
      diff)))

(defun llmster-rewrite-accept ()
  "Replace the region with the rewrite shown in this diff."
  (interactive)
  (pcase-let ((`(,source ,start ,end ,text) (or llmster--rewrite (user-error "No rewrite here"))))
    (when (buffer-live-p source)
      (with-current-buffer source
        (save-excursion
          (goto-char start)
          (delete-region start end)
          (insert text))))
    (kill-buffer (current-buffer))))

(defun llmster-rewrite-reject ()
  "Leave the region as it is and close this diff.
The rewrite is deleted from the library."
  (interactive)
  (unless llmster--rewrite (user-error "No rewrite here"))
  (let ((conversation (nth 4 llmster--rewrite)))
    (when conversation (llmster--request "conversations/delete" `((id . ,conversation)) #'ignore)))
  (kill-buffer (current-buffer)))

(provide 'llmster-rewrite)
;;; llmster-rewrite.el ends here
