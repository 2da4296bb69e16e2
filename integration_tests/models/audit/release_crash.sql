{#-
  A release to kill (tests/audit/test_audit.py). The var crash_hook, when set, is a slow statement run
  as a post-hook inside the release's transaction, after the swap and the audit inserts and
  before the commit; crash_hook_after_commit runs after the commit. The test kills dbt with
  SIGKILL while one of them runs.
-#}
{{ config(
    materialized='k_anonymous',
    k=var('crash_k', 2),
    post_hook=[
        var('crash_hook', 'select 1 as kanon_no_crash_hook'),
        {'sql': var('crash_hook_after_commit', 'select 1 as kanon_no_crash_hook'), 'transaction': false},
    ],
) }}

{{ odd_names_release() }}
