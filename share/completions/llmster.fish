# fish completion for llmster. Install: copy to ~/.config/fish/completions/llmster.fish.

function __llmster_models
    llmster models --json 2>/dev/null | string match -r -a -g '"key" *: *"([^"]*)"'
end

function __llmster_instances
    llmster ps --json 2>/dev/null | string match -r -a -g '"id" *: *"([^"]*)"'
end

set -l commands models ps load unload doctor ask chats show search
complete -c llmster -f
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -l server -r -d 'LM Studio server'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -l library -r -F -d 'library file'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -l config -r -F -d 'configuration file'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -l markdown -x -a 'auto always never' -d 'render Markdown'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -l demo -d 'run against the built-in simulator'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -s V -l version -d 'print the version'
complete -c llmster -s h -l help -d 'show help'

complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a models -d 'list the downloaded models'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a ps -d 'list the loaded model instances'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a load -d 'load a model'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a unload -d 'unload model instances'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'check the server, token and library'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a ask -d 'send one message'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a chats -d 'list conversations'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a show -d 'print a conversation'
complete -c llmster -n "not __fish_seen_subcommand_from $commands" -a search -d 'search the conversations'

complete -c llmster -n "__fish_seen_subcommand_from models" -l vision -l tools -l reasoning -l loaded -l embedding -l json
complete -c llmster -n "__fish_seen_subcommand_from models" -l sort -x -a 'name size format'
complete -c llmster -n "__fish_seen_subcommand_from ps" -l json
complete -c llmster -n "__fish_seen_subcommand_from load" -l context-length -x
complete -c llmster -n "__fish_seen_subcommand_from load" -a '(__llmster_models)'
complete -c llmster -n "__fish_seen_subcommand_from unload" -l all
complete -c llmster -n "__fish_seen_subcommand_from unload" -a '(__llmster_instances)'
complete -c llmster -n "__fish_seen_subcommand_from ask" -s m -l model -x -a '(__llmster_models)'
complete -c llmster -n "__fish_seen_subcommand_from ask" -s c -l continue -x
complete -c llmster -n "__fish_seen_subcommand_from ask" -l folder -x
complete -c llmster -n "__fish_seen_subcommand_from ask" -l system -x
complete -c llmster -n "__fish_seen_subcommand_from ask" -l image -r -F
complete -c llmster -n "__fish_seen_subcommand_from ask" -l reasoning -x
complete -c llmster -n "__fish_seen_subcommand_from ask" -l fresh-context -l no-save
complete -c llmster -n "__fish_seen_subcommand_from chats" -l folder -x
complete -c llmster -n "__fish_seen_subcommand_from chats" -l limit -x
complete -c llmster -n "__fish_seen_subcommand_from chats" -l pinned -l json
complete -c llmster -n "__fish_seen_subcommand_from show" -l reasoning -l tools -l alternatives
complete -c llmster -n "__fish_seen_subcommand_from search" -l limit -x
complete -c llmster -n "__fish_seen_subcommand_from search" -l json
