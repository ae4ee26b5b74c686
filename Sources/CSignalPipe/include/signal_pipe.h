#ifndef SLUICE_SIGNAL_PIPE_H
#define SLUICE_SIGNAL_PIPE_H

/// Installs a handler for each of `signals` that only counts the signal and
/// writes one byte to a non-blocking pipe (the self-pipe trick), so a normal
/// thread can wait for signals with poll(2). Returns the pipe's read end, or
/// -1 with errno set. Installing again adds signals to the same pipe.
int sluice_signal_pipe_install(const int *signals, int count);

/// How many times `signo` arrived since the last call (and resets the count).
unsigned sluice_signal_take(int signo);

/// How many times `signo` arrived in all (never reset).
unsigned sluice_signal_total(int signo);

#endif
