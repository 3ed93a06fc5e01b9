# bash completion for llmster. Install: source this file, or copy it to
# /usr/share/bash-completion/completions/llmster.

_llmster_models() {
    llmster models --json 2>/dev/null | grep -o '"key" *: *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'
}

_llmster_instances() {
    llmster ps --json 2>/dev/null | grep -o '"id" *: *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'
}

_llmster() {
    local cur prev words cword
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="models ps load unload doctor ask chats show search"
    local global="--server --library --config --markdown --demo --version --help"
    local command="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --server|--library|--config|--markdown) ((i++)) ;;
            -*) ;;
            *) command=${COMP_WORDS[i]}; break ;;
        esac
    done

    case $prev in
        --library|--config|--image) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --markdown) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --sort) COMPREPLY=($(compgen -W "name size format" -- "$cur")); return ;;
        -m|--model) COMPREPLY=($(compgen -W "$(_llmster_models)" -- "$cur")); return ;;
        --server|--folder|--system|--reasoning|--context-length|--limit|--continue|-c) return ;;
    esac

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$global" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    local options=""
    case $command in
        models) options="--vision --tools --reasoning --loaded --embedding --sort --json" ;;
        ps) options="--json" ;;
        load) options="--context-length" ;;
        unload) options="--all" ;;
        doctor) options="" ;;
        ask) options="--model -m --continue -c --folder --system --image --reasoning --fresh-context --no-save" ;;
        chats) options="--folder --pinned --limit --json" ;;
        show) options="--reasoning --tools --alternatives" ;;
        search) options="--limit --json" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
        return
    fi
    case $command in
        load) COMPREPLY=($(compgen -W "$(_llmster_models)" -- "$cur")) ;;
        unload) COMPREPLY=($(compgen -W "$(_llmster_instances)" -- "$cur")) ;;
    esac
}

complete -F _llmster llmster
