#ifndef SEARCHLIGHT_CEDITLINE_SHIM_H
#define SEARCHLIGHT_CEDITLINE_SHIM_H
// libedit's readline-compatible interface: line editing, history and completion for the REPL.
// https://thrysoee.dk/editline/ (NetBSD libedit); <editline/readline.h> expects <stdio.h> first.
#include <stdio.h>
#include <editline/readline.h>

// readline's configuration is mutable C globals, which Swift 6 rejects as shared mutable state;
// these accessors are the only places that touch them (from the REPL's main thread).

// Sets the REPL up before rl_initialize: libedit leaves SIGINT alone (the REPL handles it),
// keys come from `read_key` (a whole character per call, or -1 for end of input), words for
// completion break at `word_breaks`, completion asks `complete`, and the prompt goes to stderr
// when asked (standard output redirected). `name` and `word_breaks` must stay alive.
static inline void searchlight_rl_configure(const char *name, const char *word_breaks,
                                            rl_completion_func_t *complete, int (*read_key)(FILE *),
                                            int prompt_to_stderr) {
  rl_catch_signals = 0;
  rl_getc_function = read_key;
  rl_readline_name = name;
  rl_basic_word_break_characters = word_breaks;
  rl_completer_word_break_characters = (char *)word_breaks;
  rl_attempted_completion_function = complete;
  if (prompt_to_stderr) rl_outstream = stderr;
}

// 1: the completion function's answer is final; 0: fall back to file names.
static inline void searchlight_rl_set_completion_over(int over) { rl_attempted_completion_over = over; }

// The line being edited and the cursor's byte offset in it.
static inline const char *searchlight_rl_line_buffer(void) { return rl_line_buffer; }
static inline int searchlight_rl_point(void) { return rl_point; }
#endif
