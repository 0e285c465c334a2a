#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# DevStack plugin entry point: stack.sh calls it as
#   plugin.sh <mode> [<phase>]
# with mode stack (phases pre-install, install, post-config, extra,
# test-config), unstack or clean; and once as "source" so a plugin can
# replace library functions before they are used.

NOVA_CLONE_PLUGIN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/nova_clone
source "$NOVA_CLONE_PLUGIN_DIR/lib/nova_clone"

if is_service_enabled n-api n-super-cond n-cond n-sch n-cpu; then
    case "$1" in
        source)
            if [[ "$NOVA_CLONE_REPLACE_NOVA" == "True" ]]; then
                replace_devstack_nova
            fi
            ;;
        stack)
            case "$2" in
                install)
                    echo_summary "Installing nova-clone"
                    install_nova_clone
                    ;;
                post-config)
                    echo_summary "Configuring nova-clone"
                    configure_nova_clone
                    ;;
                extra)
                    echo_summary "Initialising and starting nova-clone"
                    init_nova_clone
                    start_nova_clone
                    create_nova_clone_flavors
                    ;;
            esac
            ;;
        unstack)
            stop_nova_clone
            ;;
        clean)
            stop_nova_clone
            cleanup_nova_clone
            ;;
    esac
fi
