;;; llmster-library.el --- The llmster library of conversations from Emacs  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; The conversations llmster keeps: the list (`llmster-list-conversations'), renaming, folders,
;; pins, deleting, search, export, import and backup, and the health check (`llmster-doctor').

;;; Code:

(require 'tabulated-list)
(require 'llmster)

;;;; Conversation list

(defvar llmster-chats-mode-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map tabulated-list-mode-map)
    (define-key map (kbd "RET") #'llmster-chats-open)
    (define-key map "r" #'llmster-chats-rename)
    (define-key map "m" #'llmster-chats-move)
    (define-key map "p" #'llmster-chats-toggle-pin)
    (define-key map "d" #'llmster-chats-delete)
    (define-key map "f" #'llmster-fork)
    (define-key map "s" #'llmster-search-list)
    map)
  "Keys of `llmster-chats-mode'.")

(define-derived-mode llmster-chats-mode tabulated-list-mode "llmster chats"
  "The llmster library: pinned conversations first, then the most recent."
  ;; 3 + 14 + 36 + 20 + 20 + 16, the separators and the padding: 116 columns, so "Updated" fits in 120.
  (setq tabulated-list-format [("Pin" 3 nil) ("Folder" 14 t) ("Title" 36 t) ("Forked from" 20 t) ("Model" 20 t)
                               ("Updated" 16 t)])
  (setq tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'llmster--chats-refresh nil t)
  (tabulated-list-init-header))

(defun llmster--chats-refresh ()
  "Read the conversation list from the library."
  (setq tabulated-list-entries
        (mapcar (lambda (c)
                  (list (alist-get 'id c)
                        (llmster--fit-columns
                         (vector (if (eq (alist-get 'pinned c) t) "*" "")
                                 (or (alist-get 'folderPath c) "")
                                 (alist-get 'displayTitle c)
                                 (let ((origin (alist-get 'forkedFrom c)))
                                   (if origin
                                       (format "%s, reply %d" (alist-get 'displayTitle origin)
                                               (alist-get 'reply origin))
                                     ""))
                                 (or (alist-get 'modelKey c) "")
                                 (replace-regexp-in-string "T" " " (substring (alist-get 'updatedAt c) 0 16))))))
                (alist-get 'conversations (llmster--request-sync "conversations/list")))))

(defun llmster--fit-columns (row)
  "ROW, a vector of strings, each cut to its column's width with an ellipsis.
`tabulated-list-print' does not cut them, so a long folder or title would
push the later columns past the window's edge."
  (cl-loop for value across row for column across tabulated-list-format
           vconcat (list (truncate-string-to-width value (nth 1 column) nil nil "…"))))

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
  "The conversation id on this line of the library, or of this chat."
  (if (llmster--chat-buffer-p)
      (or llmster--conversation-id (user-error "No conversation yet: send a message first"))
    (or (tabulated-list-get-id) (user-error "No conversation on this line"))))

(defun llmster--chats-conversation ()
  "The library's conversation on this line, or of this chat."
  (alist-get 'conversation (llmster--request-sync "conversations/get" `((id . ,(llmster--chats-id))))))

(defun llmster--refresh-views (id)
  "Show the library's state of conversation ID in the open chats and lists."
  (let ((title (alist-get 'displayTitle (alist-get 'conversation (llmster--request-sync "conversations/get" `((id . ,id)))))))
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (cond ((and (llmster--chat-buffer-p) (equal llmster--conversation-id id)) (llmster--name-buffer title))
              ((derived-mode-p 'llmster-chats-mode) (revert-buffer)))))))

(defun llmster-chats-open ()
  "Open the conversation on this line."
  (interactive)
  (llmster (llmster--chats-id)))

(defun llmster-chats-rename (title)
  "Rename the conversation on this line (or of this chat) to TITLE.
Its open chat is renamed with it."
  (interactive (list (read-string "New title: " (alist-get 'title (llmster--chats-conversation)))))
  (let ((id (llmster--chats-id)))
    (llmster--request-sync "conversations/rename" `((id . ,id) (title . ,title)))
    (llmster--refresh-views id)))

(defun llmster-fork (&optional reply)
  "Start a new conversation from REPLY of the conversation here, and open it.
REPLY counts the replies of the conversation's current branch from 1; nil
is the last.  The original is unchanged, and the fork continues from the
server context LM Studio keeps for that reply.  Interactively a numeric
prefix argument is REPLY and a plain \\[universal-argument] asks for it.  Here is
the chat, or the conversation on this line of the list."
  (interactive (list (cond ((consp current-prefix-arg) (read-number "Fork at reply: "))
                           (current-prefix-arg (prefix-numeric-value current-prefix-arg)))))
  (let* ((answer (llmster--request-sync "conversations/fork" `((conversationId . ,(llmster--chats-id))
                                                               ,@(when reply `((atReply . ,reply))))))
         (origin (alist-get 'forkedFrom answer))
         (buffer (llmster (alist-get 'id (alist-get 'conversation answer)))))
    (dolist (list (buffer-list))
      (with-current-buffer list (when (derived-mode-p 'llmster-chats-mode) (revert-buffer))))
    (message "llmster: forked at reply %d of \"%s\"; the original is unchanged" (alist-get 'reply origin)
             (alist-get 'displayTitle origin))
    buffer))

(defun llmster--folder-id (path)
  "The id of the folder at PATH (e.g. \"Work/Research\"), creating what is missing.
An empty PATH is the top level (nil)."
  (let ((folders (alist-get 'folders (llmster--request-sync "folders/list")))
        (parent nil) (walked nil))
    (dolist (name (split-string path "/" t "[ \t]+") parent)
      (setq walked (if walked (concat walked "/" name) name))
      (let ((match (cl-find walked folders :key (lambda (f) (alist-get 'path f)) :test #'equal)))
        (setq parent (alist-get 'id (or match (llmster--request-sync
                                               "folders/create" `((name . ,name) ,@(when parent `((parentId . ,parent))))))))))))

(defun llmster-chats-move (folder)
  "Move the conversation on this line (or of this chat) to FOLDER.
FOLDER is a path such as Work/Research.
Missing folders are created; an empty path is the top level."
  (interactive
   (list (completing-read "Folder (a/b nests; empty: top level): "
                          (mapcar (lambda (f) (alist-get 'path f))
                                  (alist-get 'folders (llmster--request-sync "folders/list"))))))
  (let ((id (llmster--chats-id)))
    (llmster--request-sync "conversations/move" `((id . ,id) (folderId . ,(llmster--folder-id folder))))
    (llmster--refresh-views id)))

(defun llmster-chats-toggle-pin ()
  "Pin or unpin the conversation on this line (or of this chat)."
  (interactive)
  (let ((id (llmster--chats-id))
        (pinned (eq (alist-get 'pinned (llmster--chats-conversation)) t)))
    (llmster--request-sync (if pinned "conversations/unpin" "conversations/pin") `((id . ,id)))
    (llmster--refresh-views id)
    (message "llmster: %s" (if pinned "unpinned" "pinned"))))

(defun llmster-chats-delete ()
  "Delete the conversation on this line (or of this chat), after confirmation.
A chat buffer showing it is killed with it."
  (interactive)
  (let* ((id (llmster--chats-id))
         (title (alist-get 'displayTitle (llmster--chats-conversation)))
         (open (cl-remove-if-not (lambda (b) (and (llmster--chat-buffer-p b)
                                                  (equal (buffer-local-value 'llmster--conversation-id b) id)))
                                 (buffer-list))))
    (when (yes-or-no-p (format "Delete \"%s\"%s? " title
                               (if open " (its open chat closes)" "")))
      (llmster--request-sync "conversations/delete" `((id . ,id)))
      (dolist (buffer open)
        ;; Nothing left to keep a draft in, nor a reply to save.
        (with-current-buffer buffer (setq llmster--conversation-id nil llmster--stream nil))
        (kill-buffer buffer))
      (dolist (buffer (buffer-list))
        (with-current-buffer buffer (when (derived-mode-p 'llmster-chats-mode) (revert-buffer)))))))

;;;; Export, import, backup

(defun llmster-export (file)
  "Write the conversation on this line (or of this chat) to FILE, a .llmster file.
See llmster-format(5); `llmster-import' reads it back, here or elsewhere."
  (interactive (list (expand-file-name (read-file-name "Export to: " nil nil nil
                                                       (concat (llmster--safe-file-name) ".llmster")))))
  (let ((path (alist-get 'path (llmster--request-sync "transfer/export" `((conversationId . ,(llmster--chats-id))
                                                                            (path . ,(expand-file-name file)))))))
    (message "llmster: exported to %s" path)
    path))

(defun llmster--safe-file-name ()
  "A file name from the title of the conversation on this line (or of this chat)."
  (replace-regexp-in-string "[^[:alnum:]_.-]+" "-" (alist-get 'displayTitle (llmster--chats-conversation))))

;;;###autoload
(defun llmster-import (file)
  "Add the conversation of FILE, a .llmster file, to the library and open it.
When the file continues a server context held elsewhere, ask whether to keep it."
  (interactive (list (expand-file-name (read-file-name "Import: " nil nil t))))
  (llmster--ensure-process)
  (let* ((path (expand-file-name file))
         (answer (llmster--call "transfer/import" `((path . ,path))))
         (kind (llmster--error-kind (cdr answer))))
    (cond
     ((equal kind "confirmation_required")
      (setq answer (llmster--call "transfer/import"
                                  `((path . ,path)
                                    (continuation . ,(if (y-or-n-p "The file continues another server's context.  Keep it (no: start afresh)? ")
                                                         "keep" "drop"))))))
     ((and (equal kind "already_imported") (not (y-or-n-p "This library already holds it.  Import a copy (no: open it)? ")))
      (let ((id (alist-get 'conversationId (alist-get 'data (cdr answer)))))
        (setq answer (cons `((conversation (id . ,id))) nil))))
     ((equal kind "already_imported")
      (setq answer (llmster--call "transfer/import" `((path . ,path) (asNew . t))))))
    (when (cdr answer) (user-error "The import failed: %s" (alist-get 'message (cdr answer))))
    (llmster (alist-get 'id (alist-get 'conversation (car answer))))))

;;;###autoload
(defun llmster-import-lmstudio (&optional directory)
  "Bring LM Studio's own desktop chats into the library, after a preview.
They are read, never changed, from DIRECTORY (interactively, with a prefix
argument; else where LM Studio keeps them).  The preview says how many
chats, messages and folders there are and what cannot be read; yes imports
those not imported before.  Returns rpc's answer."
  (interactive (list (when current-prefix-arg (expand-file-name (read-directory-name "LM Studio chats: ")))))
  (llmster--ensure-process)
  (let* ((params (when directory `((directory . ,(expand-file-name directory)))))
         (preview (llmster--request-sync "transfer/lmstudio" (cons '(dryRun . t) params)))
         (unreadable (append (alist-get 'unreadable preview) nil))
         (missing (append (alist-get 'missingImages preview) nil))
         (summary (format "%d chats, %d messages, %d folders in %s%s%s%s"
                          (alist-get 'chats preview) (alist-get 'messages preview)
                          (length (alist-get 'folders preview)) (alist-get 'directory preview)
                          (if (> (alist-get 'importedBefore preview) 0)
                              (format "; %d imported before" (alist-get 'importedBefore preview)) "")
                          (if missing
                              (format "; images not found: %s"
                                      (mapconcat (lambda (item) (format "%s (%s)" (alist-get 'image item) (alist-get 'file item)))
                                                 missing ", "))
                            "")
                          (if unreadable
                              (format "; cannot be read: %s"
                                      (mapconcat (lambda (item) (format "%s (%s)" (alist-get 'file item) (alist-get 'reason item)))
                                                 unreadable ", "))
                            ""))))
    (if (not (y-or-n-p (format "%s.  Import? " summary)))
        (progn (message "llmster: nothing imported") preview)
      (let ((answer (llmster--request-sync "transfer/lmstudio" params)))
        (message "llmster: imported %d chats%s" (alist-get 'imported answer)
                 (if (> (alist-get 'alreadyThere answer) 0)
                     (format " (%d were there already)" (alist-get 'alreadyThere answer)) ""))
        answer))))

;;;###autoload
(defun llmster-backup (file &optional password)
  "Write the whole library to FILE; with PASSWORD (not empty), encrypted.
Interactively the password is asked for (empty: none), then again: a
mistyped password would leave a backup nobody can restore, so two that
differ back up nothing."
  (interactive (list (expand-file-name (read-file-name "Back up the library to: " nil nil nil "llmster.llmster-backup"))
                     (llmster--read-backup-password)))
  (llmster--ensure-process)
  (let* ((answer (llmster--request-sync "library/backup" `((path . ,(expand-file-name file))
                                                           ,@(when (and password (not (string-empty-p password)))
                                                               `((password . ,password))))))
         (statistics (alist-get 'statistics answer)))
    (message "llmster: %d conversations backed up to %s%s" (or (alist-get 'conversations statistics) 0)
             (alist-get 'path answer) (if (eq (alist-get 'encrypted answer) t) ", encrypted" ""))
    answer))

(defun llmster--read-backup-password ()
  "Read a backup's password twice; return it, or \"\" for none.
Signal a `user-error' when the two differ."
  (let ((password (read-passwd "Password (empty: not encrypted): ")))
    (unless (string-empty-p password)
      (unless (equal password (read-passwd "The password again: "))
        (user-error "The passwords differ: nothing was backed up")))
    password))

;;;; Health check

;;;###autoload
(defun llmster-doctor ()
  "Show whether llmster is set up, as Neovim's :checkhealth llmster does.
That is the executable, its version, whether LM Studio answers and with
which models, and whether `markdown-mode' is there for chat buffers.
Return the report's lines."
  (interactive)
  (let ((lines nil))
    (cl-flet ((report (ok text) (push (concat (if ok "OK     " "ERROR  ") text) lines)))
      (let ((program (executable-find llmster-program)))
        (report program (if program (format "executable: %s" program)
                          (format "%s is not on the exec-path: install llmster or set `llmster-program'" llmster-program)))
        (when program
          (condition-case err
              (let ((info (progn (llmster--ensure-process) (process-get llmster--process 'llmster-info))))
                (report t (format "llmster rpc %s speaks protocol %s"
                                  (alist-get 'version (alist-get 'serverInfo info)) (alist-get 'protocolVersion info)))
                (condition-case err
                    (let ((models (alist-get 'models (llmster--request-sync "models/list" '((refresh . t))))))
                      (report t (format "LM Studio answers at %s: %d models, %d loaded" (alist-get 'server info) (length models)
                                        (cl-count-if (lambda (m) (eq (alist-get 'loaded m) t)) models))))
                  (error (report nil (format "LM Studio does not answer at %s: %s (start it with `lms server start', or set the server in llmster's config)"
                                             (alist-get 'server info) (error-message-string err))))))
            (error (report nil (format "llmster rpc does not start: %s (see the buffer \" *llmster-stderr*\")"
                                       (error-message-string err)))))))
      (report (featurep 'markdown-mode)
              (if (featurep 'markdown-mode) "markdown-mode: chat buffers use it"
                "markdown-mode is not installed: chat buffers use text-mode")))
    (setq lines (nreverse lines))
    (with-current-buffer (get-buffer-create "*llmster doctor*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (string-join lines "\n") "\n"))
      (special-mode)
      (when (called-interactively-p 'interactive) (display-buffer (current-buffer))))
    lines))

;;;; Search

(defun llmster--search (query)
  "The library's hits for QUERY."
  (alist-get 'hits (llmster--request-sync "conversations/search" `((query . ,query)))))

(defun llmster--hit-label (hit)
  "The line showing search HIT."
  (format "%s — %s" (alist-get 'displayTitle hit)
          (replace-regexp-in-string "[\n\t]+" " " (or (alist-get 'snippet hit) ""))))

;;;###autoload
(defun llmster-search (query)
  "Search the library for QUERY and open the conversation chosen."
  (interactive (list (read-string "Search the library: ")))
  (llmster--ensure-process)
  (let* ((hits (cl-remove-duplicates (or (llmster--search query) (user-error "Nothing in the library matches %s" query))
                                     :key (lambda (hit) (alist-get 'conversationId hit)) :test #'equal :from-end t))
         (table (mapcar (lambda (hit) (cons (llmster--hit-label hit) hit)) hits))
         (choice (completing-read "Open: " table nil t)))
    (llmster (alist-get 'conversationId (cdr (assoc choice table))))))

(define-derived-mode llmster-search-mode tabulated-list-mode "llmster search"
  "Search results of the llmster library: RET opens the conversation."
  (setq tabulated-list-format [("Title" 30 t) ("Match" 80 nil)])
  (setq tabulated-list-padding 1)
  (tabulated-list-init-header))

(define-key llmster-search-mode-map (kbd "RET") #'llmster-chats-open)

;;;###autoload
(defun llmster-search-list (query)
  "List the library's matches for QUERY in a buffer; RET opens one."
  (interactive (list (read-string "Search the library: ")))
  (llmster--ensure-process)
  (let ((buffer (get-buffer-create (format "*llmster search: %s*" query)))
        (hits (llmster--search query)))
    (with-current-buffer buffer
      (llmster-search-mode)
      (setq tabulated-list-entries
            (cl-loop for hit in hits for n from 0
                     collect (list (alist-get 'conversationId hit)
                                   (vector (alist-get 'displayTitle hit)
                                           (replace-regexp-in-string "[\n\t]+" " " (or (alist-get 'snippet hit) ""))))))
      (tabulated-list-print))
    (pop-to-buffer-same-window buffer)
    buffer))

(provide 'llmster-library)
;;; llmster-library.el ends here
