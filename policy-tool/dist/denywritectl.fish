# fish completion for denywritectl(8): commands, their options, the modes,
# and paths (files for load, the paths of the current rules for del).

set -l commands status mode add del clear list load diff cat-config save why stats log

function __denywritectl_rule_paths
    # list prints the paths as del takes them; fish quotes what it inserts
    denywritectl list 2>/dev/null | string match -v -r '^#' | string replace -r '^\S+ ' ''
end

complete -c denywritectl -f
complete -c denywritectl -s h -l help -d 'Show the help'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -s V -l version -d 'Show the version'
complete -c denywritectl -s j -l json -n "not __fish_seen_subcommand_from add del clear cat-config" -d 'JSON output'

complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a status -d 'Is denywrite active; mode, policy, counters'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a mode -d 'Show or set the mode'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a add -d 'Add rules'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a del -d 'Remove rules'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a clear -d 'Remove every rule'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a list -d 'List the rules'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a load -d 'Replace the rules with policy files'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a diff -d 'What load would change'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a cat-config -d 'The rules files load reads, merged'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a save -d 'Print the rules as a policy file'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a why -d 'Why writing or running a file fails'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a stats -d 'Show the counters'
complete -c denywritectl -n "not __fish_seen_subcommand_from $commands" -a log -d "denywrite's audit records"

complete -c denywritectl -n '__fish_seen_subcommand_from mode' -a 'off audit enforce'
complete -c denywritectl -n '__fish_seen_subcommand_from list' -l sources -d 'The file and line of each rule'
complete -c denywritectl -n '__fish_seen_subcommand_from list load diff add del cat-config' -l root -r -a '(__fish_complete_directories)' -d 'rules.d under this directory'
complete -c denywritectl -n '__fish_seen_subcommand_from add' -F
complete -c denywritectl -n '__fish_seen_subcommand_from add' -l exec -d 'Scope exec'
complete -c denywritectl -n '__fish_seen_subcommand_from add' -l lib -d 'Scope lib'
complete -c denywritectl -n '__fish_seen_subcommand_from add' -l all -d 'Scope all'
complete -c denywritectl -n '__fish_seen_subcommand_from add' -l ignore-writers -d 'Allow exec of a file open for writing'
complete -c denywritectl -n '__fish_seen_subcommand_from add del' -l persist -d 'Also in 90-local.rules'
complete -c denywritectl -n '__fish_seen_subcommand_from add del load why' -s q -l quiet -d 'Quiet'
complete -c denywritectl -n '__fish_seen_subcommand_from del' -a '(__denywritectl_rule_paths)' -d 'Rule'
complete -c denywritectl -n '__fish_seen_subcommand_from load diff' -F
complete -c denywritectl -n '__fish_seen_subcommand_from load' -s n -l dry-run -l check -d 'Check only'
complete -c denywritectl -n '__fish_seen_subcommand_from load' -l strict -d 'Any bad rule fails the load'
complete -c denywritectl -n '__fish_seen_subcommand_from diff' -l strict -d 'A rule load would skip is trouble'
complete -c denywritectl -n '__fish_seen_subcommand_from load' -l allow-empty -d 'Let no rules clear the rules'
complete -c denywritectl -n '__fish_seen_subcommand_from why' -F
complete -c denywritectl -n '__fish_seen_subcommand_from why' -l pids -d 'The pids, one a line'
complete -c denywritectl -n '__fish_seen_subcommand_from why' -s w -l wide -d 'Do not cut command lines'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l since -x -a 'now recent today yesterday this-week this-month this-year' -d 'From this time'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -s f -l follow -d 'Wait for new records'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l file -r -F -d 'Read records from a file'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l journal-file -r -F -d 'Read records from a journal file'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l op -x -a 'write truncate exec mmap mode rules add del unmount' -d 'Only records of this op'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l path -r -F -d 'Only records of this file'
complete -c denywritectl -n '__fish_seen_subcommand_from log' -l uid -x -a '(__fish_complete_users)' -d 'Only records of this user'
