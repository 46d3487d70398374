# bash completion for onnxop: commands, options, operator names, formats and
# files. `make install` puts it in $(PREFIX)/share/bash-completion/completions/
# (where bash-completion finds it); or source it from ~/.bashrc.
#
# Options come from `onnxop CMD --help` and operator names from `onnxop ops`,
# so they follow the binary being completed (the command's first word).

_onnxop_ops() { # the operator names the registry has
  "$1" ops 2>/dev/null | awk 'NR > 1 { print $2 }' | sort -u
}

_onnxop_opts() { # the long and short options CMD --help lists
  "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ ,(])--?[a-z][a-z0-9-]*' | sed 's/^[ ,(]//' | sort -u
}

_onnxop() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} bin=${COMP_WORDS[0]}
  local cmds="run test ops make convert compare show info bench help"
  local cmd= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
    --threads | --max-memory | --timeout) ((i++)) ;;
    -*) ;;
    *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  COMPREPLY=()
  # --opt=value: complete the value
  if [[ $cur == --*=* ]]; then
    prev=${cur%%=*}
    cur=${cur#*=}
  fi
  case $prev in
  --format) COMPREPLY=($(compgen -W "pb json npy npz" -- "$cur")); return ;;
  --domain) COMPREPLY=($(compgen -W "ai.onnx ai.onnx.ml ai.onnx.preview ai.onnx.preview.training" -- "$cur")); return ;;
  --case | --suite | --out-dir | --save-intermediates) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  --opset | --ir-version | --random | --datasets | --threads | --max-memory | --timeout | --runs | --warmup | \
    --rtol | --atol | -j | --dim | --range | --name | -a | --attr | --input | --output | --for-each-type)
    return ;;
  esac
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version --threads --max-memory --timeout" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
    fi
    return
  fi
  if [[ $cmd == help ]]; then
    COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_onnxop_opts "$bin" "$cmd") --threads --max-memory --timeout" -- "$cur"))
    return
  fi
  # make OP and ops OP: operator names, for the first operand
  if [[ $cmd == make || $cmd == ops ]]; then
    local operands=0
    for ((i = i + 1; i < COMP_CWORD; i++)); do
      [[ ${COMP_WORDS[i]} == -* ]] && continue
      [[ ${COMP_WORDS[i - 1]} == -* && ${COMP_WORDS[i - 1]} != *=* && ${COMP_WORDS[i - 1]} != --force &&
        ${COMP_WORDS[i - 1]} != --json && ${COMP_WORDS[i - 1]} != --allow-nan &&
        ${COMP_WORDS[i - 1]} != --for-each-opset ]] && continue
      ((operands++))
    done
    if ((operands == 0)); then
      COMPREPLY=($(compgen -W "$(_onnxop_ops "$bin")" -- "$cur"))
      return
    fi
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _onnxop onnxop
