;;; llmster-transient.el --- The menu of every llmster command  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: MIT

;; This file is part of llmster, distributed under the MIT licence: see LICENSE at the top of
;; the llmster repository.

;;; Commentary:

;; `llmster-menu' (C-c C-t in a chat): the only part of llmster that needs transient.

;;; Code:

(require 'transient)
(require 'llmster)

;;;; Menu

;;;###autoload (autoload 'llmster-menu "llmster-transient" nil t)
(transient-define-prefix llmster-menu ()
  "Every llmster command."
  [["Chat"
    ("c" "Send" llmster-send)
    ("k" "Cancel, or stop editing" llmster-cancel)
    ("a" "Ask again (regenerate)" llmster-regenerate)
    ("w" "Edit the last message" llmster-edit-last)
    ("v" "Choose an alternative" llmster-choose-alternative)
    ("f" "Ask again, fresh context" llmster-fresh-context)
    ("y" "Ask again, fresh, with a recap" llmster-fresh-context-with-recap)
    ("F" "Fork from the last reply" llmster-fork)
    ("d" "Show the request (dry run)" llmster-preview)
    ("r" "Fold or show reasoning" llmster-toggle-reasoning)
    ("Y" "Copy a code block" llmster-copy-code-block)
    ("C" "Insert a code block" llmster-insert-code-block)]
   ["Settings"
    ("m" "Model" llmster-select-model)
    ("p" "System prompt" llmster-set-system-prompt)
    ("P" "Apply a preset" llmster-apply-preset)
    ("e" "Reasoning effort" llmster-set-reasoning)
    ("T" "Integrations (tools)" llmster-set-integrations)
    ("g" "Read the config again" llmster-reload-config)
    ("S" "Server profile" llmster-switch-server)]]
  [["Context and regions"
    ("b" "Add a buffer (C-u: file)" llmster-add-context)
    ("u" "Attach an image" llmster-attach-image)
    ("x" "Clear the context" llmster-clear-context)
    ("s" "Send the region" llmster-send-region)
    ("R" "Rewrite the region" llmster-rewrite)]
   ["Library"
    ("n" "New chat" llmster)
    ("N" "New chat with a preset" llmster-new-chat-with-preset)
    ("l" "Conversations" llmster-list-conversations)
    ("/" "Search" llmster-search)
    ("?" "Search, as a list" llmster-search-list)
    ("I" "Import a .llmster file" llmster-import)
    ("L" "Import LM Studio's own chats" llmster-import-lmstudio)
    ("B" "Back up the library" llmster-backup)
    ("H" "Health check" llmster-doctor)]]
  [["This conversation"
    ("t" "Rename (title)" llmster-chats-rename)
    ("o" "Move to a folder" llmster-chats-move)
    ("i" "Pin or unpin" llmster-chats-toggle-pin)
    ("D" "Delete" llmster-chats-delete)
    ("X" "Export to a file" llmster-export)]])

(provide 'llmster-transient)
;;; llmster-transient.el ends here
