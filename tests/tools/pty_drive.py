#!/usr/bin/env python3
"""pty_drive.py: drives an interactive program through a real pseudo-terminal, as a user at a
keyboard would, and prints what the screen showed.

    pty_drive.py [--timeout S] SCRIPT -- CMD [ARGS...]

SCRIPT is a file (a lit test, usually the test itself) whose comment lines hold the steps, in
order; every other line is ignored:

    # KEYS: text    wait until the program shows a prompt ("tes> " or "...  ") and is quiet,
                    then type text
    # SEND: text    type text at once (Ctrl-C while code runs)
    # WAIT: regex   wait until the screen since the last keys matches regex
    # SLEEP: secs   wait that long

text takes Python escapes: \\n Enter, \\t TAB, \\x03 Ctrl-C, \\x04 Ctrl-D. After the last step
the program must exit on its own (end with Ctrl-D or :quit). The transcript is printed with
escape sequences applied the way a terminal would (carriage returns and erasures resolved),
followed by "exit status: N". A step that times out prints the transcript so far and exits 1.
"""
import codecs
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

PROMPT = re.compile(r'(tes> |\.\.\.  )$')
STEP = re.compile(r'^\s*#\s*(KEYS|SEND|WAIT|SLEEP):(?: (.*))?$')
QUIET = 0.05  # seconds without output before typing at a prompt


class Screen:
    """A minimal terminal: enough of one to turn readline's redisplay into what a user sees."""

    def __init__(self):
        self.lines = []
        self.cur = []
        self.col = 0
        self.pending = ''

    def feed(self, text):
        text = self.pending + text
        self.pending = ''
        i = 0
        while i < len(text):
            c = text[i]
            if c == '\x1b':
                n = self.escape(text, i)
                if n is None:  # incomplete sequence: wait for the rest
                    self.pending = text[i:]
                    return
                i = n
                continue
            self.char(c)
            i += 1

    def escape(self, text, i):
        if i + 1 >= len(text):
            return None
        if text[i + 1] == '[':
            m = re.compile(r'\[([0-9;?]*)([@-~])').match(text, i + 1)
            if not m:
                return None if len(text) - i < 16 else i + 2
            self.csi(m.group(1), m.group(2))
            return m.end()
        if text[i + 1] == ']':  # OSC: up to BEL or ESC \
            end = re.compile(r'\x07|\x1b\\').search(text, i + 2)
            return None if not end else end.end()
        return i + 2

    def csi(self, args, final):
        n = int(args) if args.isdigit() else 1
        if final == 'K':
            del self.cur[self.col:]
        elif final == 'C':
            self.col += n
        elif final == 'D':
            self.col = max(0, self.col - n)
        elif final == 'G':
            self.col = max(0, n - 1)
        elif final == 'P':
            del self.cur[self.col:self.col + n]

    def char(self, c):
        if c == '\n':
            self.lines.append(''.join(self.cur))
            self.cur, self.col = [], 0
        elif c == '\r':
            self.col = 0
        elif c == '\b':
            self.col = max(0, self.col - 1)
        elif c == '\x07':
            pass
        elif c >= ' ' or c == '\t':
            while len(self.cur) < self.col:
                self.cur.append(' ')
            if self.col < len(self.cur):
                self.cur[self.col] = c
            else:
                self.cur.append(c)
            self.col += 1

    def current(self):
        return ''.join(self.cur)

    def text(self, since=0):
        return '\n'.join(self.lines[since:] + [self.current()])


class Driver:
    def __init__(self, argv, timeout):
        self.timeout = timeout
        self.screen = Screen()
        self.decoder = codecs.getincrementaldecoder('utf-8')('replace')
        self.eof = False
        self.mark = 0  # screen line where the output since the last keys starts
        self.fresh = True  # output arrived since the last keys
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 80, 0, 0))

    def pump(self, wait):
        """Reads what the program wrote within `wait` seconds; False once it has closed."""
        if self.eof:
            return False
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            data = b''
        if not data:
            self.eof = True
            return False
        self.screen.feed(self.decoder.decode(data))
        self.fresh = True
        return True

    def until(self, what, ready):
        deadline = time.monotonic() + self.timeout
        while not ready():
            if self.eof:
                self.fail('program exited while waiting for ' + what)
            if time.monotonic() > deadline:
                self.fail('timed out waiting for ' + what)
            self.pump(0.02)

    def at_prompt(self):
        """A prompt ends the screen, it came after the last keys, and nothing follows it."""
        if not (self.fresh and PROMPT.search(self.screen.current())):
            return False
        before = self.screen.text()
        self.pump(QUIET)
        return self.screen.text() == before

    def type(self, text):
        self.fresh = False
        self.mark = len(self.screen.lines)
        os.write(self.fd, text.encode())

    def step(self, kind, arg):
        if kind == 'KEYS':
            self.until('a prompt', self.at_prompt)
            self.type(arg)
        elif kind == 'SEND':
            self.type(arg)
        elif kind == 'WAIT':
            pat = re.compile(arg, re.M)
            self.until(repr(arg), lambda: pat.search(self.screen.text(self.mark)))
        elif kind == 'SLEEP':
            end = time.monotonic() + float(arg)
            while time.monotonic() < end:
                self.pump(0.01)

    def finish(self):
        deadline = time.monotonic() + self.timeout
        while self.pump(0.05):
            if time.monotonic() > deadline:
                self.fail('timed out waiting for the program to exit')
        _, status = os.waitpid(self.pid, 0)
        self.show()
        code = os.waitstatus_to_exitcode(status)
        print('exit status: %d' % (code if code >= 0 else 128 - code))

    def show(self):
        text = self.screen.text()
        sys.stdout.write(text if text.endswith('\n') or not text else text + '\n')

    def fail(self, why):
        self.show()
        print('pty_drive: ' + why)
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        sys.exit(1)


def read_steps(path):
    steps = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = STEP.match(line.rstrip('\n'))
            if m:
                arg = m.group(2) or ''
                if m.group(1) in ('KEYS', 'SEND'):
                    arg = codecs.decode(arg, 'unicode_escape')
                steps.append((m.group(1), arg))
    return steps


def main():
    args = sys.argv[1:]
    timeout = float(os.environ.get('PTY_DRIVE_TIMEOUT', '20'))
    if args[:1] == ['--timeout']:
        timeout, args = float(args[1]), args[2:]
    if len(args) < 3 or args[1] != '--':
        sys.exit('usage: pty_drive.py [--timeout S] SCRIPT -- CMD [ARGS...]')
    steps = read_steps(args[0])
    d = Driver(args[2:], timeout)
    for kind, arg in steps:
        d.step(kind, arg)
    d.finish()


if __name__ == '__main__':
    main()
