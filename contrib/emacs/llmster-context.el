;;; llmster-context.el --- Buffers, files and regions sent with a chat message  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; What goes with the next message of a chat besides the typed text: buffers, files and regions
;; as llmster's context items, which it reads, checks and saves with the message
;; (`llmster-add-context'), and a region sent with an instruction (`llmster-send-region').

;;; Code:

(require 'llmster)

;;;; Context, regions and rewriting

(defun llmster--language (buffer)
  "The fence language of BUFFER, from its major mode (e.g. python, emacs-lisp)."
  (let ((mode (symbol-name (buffer-local-value 'major-mode buffer))))
    (replace-regexp-in-string "\\(-ts\\)?-mode\\'" "" mode)))

(defun llmster--fenced (name language text)
  "TEXT as a fenced block in LANGUAGE, introduced by its file NAME."
  (let ((fence (if (string-match-p "^```" text) "````" "```")))
    (format "File: %s\n%s%s\n%s%s%s\n" name fence language text (if (string-suffix-p "\n" text) "" "\n") fence)))

(defun llmster--source-name (buffer)
  "The file name of BUFFER, or its name."
  (let ((file (buffer-file-name buffer)))
    (if file (file-name-nondirectory file) (buffer-name buffer))))

(defun llmster--context-items ()
  "The attached buffers, regions and files as rpc context items.
llmster reads a file itself (with its checks and caps); a buffer or a
region goes as its text under its name.  Each reaches the model as a
fenced block before the message and is saved with it."
  (vconcat
   (delq nil
         (mapcar (lambda (entry)
                   (let ((source (cdr entry)))
                     (cond
                      ((consp source) `((name . ,(car entry)) (text . ,(cdr source))))
                      ((bufferp source)
                       (when (buffer-live-p source)
                         `((name . ,(car entry))
                           (text . ,(with-current-buffer source
                                      (buffer-substring-no-properties (point-min) (point-max)))))))
                      (t (let ((file (expand-file-name source)))
                           `((path . ,(file-name-nondirectory file)) (directory . ,(file-name-directory file))))))))
                 llmster--context))))

(defun llmster--choose-chat (prompt)
  "The chat buffer to use: this one, or one asked for with PROMPT.
Nil means a new chat."
  (if (llmster--chat-buffer-p)
      (current-buffer)
    (let ((chats (cl-loop for b in (buffer-list) when (llmster--chat-buffer-p b) collect (buffer-name b))))
      (when chats
        (get-buffer (completing-read prompt chats nil t nil nil (car chats)))))))

;;;###autoload
(defun llmster-add-context (source &optional chat)
  "Send SOURCE (a buffer, a file name or a region) with CHAT's next message.
An image file goes as an image (`llmster-attach-image').
Interactively: the active region; else a buffer is asked for (by default
this one, or from a chat the buffer last visited); with a prefix argument,
a file.  A region is (START . END) of the current buffer."
  (interactive
   (list (cond (current-prefix-arg (expand-file-name (read-file-name "File to add: " nil nil t)))
               ((use-region-p) (cons (region-beginning) (region-end)))
               (t (get-buffer (read-buffer "Buffer to add: " (buffer-name (llmster--context-default)) t))))
         (llmster--choose-chat "Add to chat: ")))
  (when (consp source)
    (setq source (llmster--region-source (car source) (cdr source))))
  (if (and (stringp source) (llmster--image-file-p source))
      (llmster-attach-image source chat)
    (let ((target (or chat (save-window-excursion (llmster))))
          (name (cond ((bufferp source) (llmster--source-name source))
                      ((consp source) (car source))
                      (t (file-name-nondirectory source)))))
      (when (consp source) (setq source (cdr source)))
      (with-current-buffer target
        (setq llmster--context (append llmster--context (list (cons name source))))
        (llmster--show-context))
      (message "llmster: %s goes with the next message in %s" name (buffer-name target))
      target)))

(defun llmster--image-file-p (file)
  "Whether FILE is named as an image llmster sends as one (PNG, JPEG, GIF, WebP)."
  (string-match-p "\\.\\(?:png\\|jpe?g\\|gif\\|webp\\)\\'" (downcase file)))

;;;###autoload
(defun llmster-attach-image (file &optional chat)
  "Send the image FILE with CHAT's next message, for a model that sees images.
llmster reads the file when the message is sent: PNG, JPEG, GIF or WebP.
Interactively CHAT is this chat, or one asked for; `llmster-add-context'
on an image file does the same.  The model must understand images (its
capabilities in \\[llmster-select-model] say vision)."
  (interactive (list (expand-file-name (read-file-name "Image to attach: " nil nil t))
                     (llmster--choose-chat "Attach to chat: ")))
  (let ((target (or chat (save-window-excursion (llmster)))) (file (expand-file-name file)))
    (unless (file-readable-p file) (user-error "Cannot read %s" file))
    (with-current-buffer target
      (setq llmster--images (append llmster--images (list file)))
      (llmster--show-context))
    (message "llmster: the image %s goes with the next message in %s" (file-name-nondirectory file) (buffer-name target))
    target))

(defun llmster--context-default ()
  "Return the buffer `llmster-add-context' proposes.
That is this buffer, or from a chat the last buffer that is no chat."
  (if (llmster--chat-buffer-p)
      (or (cl-find-if-not (lambda (b) (or (llmster--chat-buffer-p b) (string-prefix-p " " (buffer-name b))
                                          (minibufferp b)))
                          (buffer-list))
          (current-buffer))
    (current-buffer)))

(defun llmster--region-source (start end)
  "(NAME . (LANGUAGE . TEXT)): the region START to END of this buffer as context."
  (cons (format "%s (lines %d-%d)" (llmster--source-name (current-buffer))
                (line-number-at-pos start) (line-number-at-pos (if (> end start) (1- end) end)))
        (cons (llmster--language (current-buffer)) (buffer-substring-no-properties start end))))

(defun llmster-clear-context ()
  "Send no attached buffer, file or image with the next message."
  (interactive)
  (llmster--require-chat)
  (setq llmster--context nil llmster--images nil)
  (llmster--show-context))

(defun llmster--region-text (start end instruction)
  "The region START to END as a fenced block, then INSTRUCTION."
  (concat (llmster--fenced (llmster--source-name (current-buffer)) (llmster--language (current-buffer))
                           (buffer-substring-no-properties start end))
          (if (string-empty-p instruction) "" (concat "\n" instruction))))

;;;###autoload
(defun llmster-send-region (start end instruction &optional buffer)
  "Send the text from START to END with INSTRUCTION to chat BUFFER.
The region goes as a fenced block with its file name and language.
Interactively BUFFER is asked for; without one a new chat opens."
  (interactive
   (list (region-beginning) (region-end) (read-string "Instruction: ") (llmster--choose-chat "Chat buffer: ")))
  (let ((text (llmster--region-text start end instruction))
        (target (or buffer (save-window-excursion (llmster)))))
    (with-current-buffer target
      (when llmster--stream (user-error "A reply is still streaming in %s; C-c C-k cancels it" (buffer-name)))
      ;; Sent, the region would replace the message being edited.
      (when llmster--edit-next
        (user-error (substitute-command-keys "%s is editing its last message: send the edit, or leave it with \
\[llmster-cancel], first") (buffer-name)))
      (goto-char (point-max))
      (unless (string-empty-p (string-trim (buffer-substring-no-properties llmster--input-start (point-max))))
        (insert "\n\n"))
      (insert text)
      (llmster-send))
    (display-buffer target)
    target))

(provide 'llmster-context)
;;; llmster-context.el ends here
