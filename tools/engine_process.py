"""An engine process for Python scripts that drive engines (tools/referee.py, the bot
stand-in in tests/bot): a reader thread queues its lines, so that every wait has
a timeout and a dead or silent engine is an EngineError instead of a hang. Python 3
standard library only."""
import queue
import subprocess
import threading
import time


class EngineError(Exception):
    """The engine died, hung or said something the protocol does not allow."""


class EngineProcess:
    def __init__(self, argv, name, cwd=None):
        """argv: the command as a list; name: what the errors call it."""
        self.name = name
        try:
            self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=cwd)
        except OSError as e:
            raise EngineError("%s: cannot start (%s)" % (name, e))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, text):
        try:
            self.p.stdin.write(text + "\n")
            self.p.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineError("%s is gone: %s" % (self.name, e))

    def until(self, done, timeout, fail=None):
        """The lines up to and including the first for which done() is true; a line for
        which fail() is true on the way is an EngineError."""
        out, end = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.001, end - time.monotonic()))
            except queue.Empty:
                raise EngineError("%s said nothing for %.1f s" % (self.name, timeout))
            if line is None:
                raise EngineError("%s exited" % self.name)
            if fail and fail(line):
                raise EngineError(line)
            out.append(line)
            if done(line):
                return out

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=3)
        except Exception:
            self.p.kill()
            self.p.wait()
