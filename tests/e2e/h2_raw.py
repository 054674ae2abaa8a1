"""A small HTTP/2 client written frame by frame, for the hostile-load test.

It speaks just enough of RFC 9113 to hold many watches on few connections
(SETTINGS, PING and flow control answered) and to send what a well-behaved
client never would (streams reset at once, header blocks that never end).
Request headers are encoded as HPACK literals without indexing; response
headers are not decoded: a response's status is 200 when its header block
starts with the static table's ":status: 200" (0x88), which is how every
HPACK encoder sends it.
"""

import select
import socket
import ssl
import struct
import time

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = (
    0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8, 0x9)
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
MAX_CONCURRENT_STREAMS = 0x3
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
CANCEL = 0x8


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def hpack_int(value, prefix_bits=7, first=0):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_literal(name, value):
    """A literal header field without indexing, new name, no Huffman."""
    name, value = name.encode(), value.encode()
    return b"\x00" + hpack_int(len(name)) + name + hpack_int(len(value)) + value


def request_block(method, path, token, authority="127.0.0.1"):
    fields = [(":method", method), (":scheme", "https"), (":authority", authority),
              (":path", path)]
    if token:
        fields.append(("authorization", "Bearer " + token))
    return b"".join(hpack_literal(n, v) for n, v in fields)


class Connection:
    """One TLS connection with ALPN h2."""

    def __init__(self, port, cafile, timeout=30):
        ctx = ssl.create_default_context(cafile=cafile)
        ctx.set_alpn_protocols(["h2"])
        raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        self.alpn = self.sock.selected_alpn_protocol()
        self.next_id = 1
        self.max_streams = None  # from the server's SETTINGS
        self.open = set()
        self.status = {}      # stream -> True when the header block says 200
        self.data = {}        # stream -> bytes
        self.ended = set()    # streams the server ended or reset
        self.reset = {}       # stream -> RST_STREAM code
        self.goaway = None    # GOAWAY's error code
        self.closed = False
        self.buf = b""
        self.out = bytearray()
        self.send(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 0x2, 0)))

    def send(self, data):
        self.out += data
        self.flush()

    def flush(self):
        while self.out and not self.closed:
            try:
                n = self.sock.send(self.out)
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                return
            except OSError:
                self.closed = True
                return
            del self.out[:n]

    def request(self, method, path, token, end_stream=True):
        sid = self.next_id
        self.next_id += 2
        self.open.add(sid)
        flags = END_HEADERS | (END_STREAM if end_stream else 0)
        self.send(frame(HEADERS, flags, sid, request_block(method, path, token)))
        return sid

    def rst(self, sid, code=CANCEL):
        self.send(frame(RST_STREAM, 0, sid, struct.pack(">I", code)))
        self.open.discard(sid)

    def full(self):
        return self.max_streams is not None and len(self.open) >= self.max_streams

    def fileno(self):
        return self.sock.fileno()

    def read(self):
        """Reads what is there and handles every whole frame."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    self.closed = True
                    break
                self.buf += chunk
                if not self.sock.pending():
                    break
        except (ssl.SSLWantReadError, BlockingIOError, socket.timeout):
            pass
        except OSError:
            self.closed = True
        while len(self.buf) >= 9:
            length = struct.unpack(">I", b"\x00" + self.buf[:3])[0]
            if len(self.buf) < 9 + length:
                break
            ftype, flags = self.buf[3], self.buf[4]
            sid = struct.unpack(">I", self.buf[5:9])[0] & 0x7fffffff
            payload = self.buf[9:9 + length]
            self.buf = self.buf[9 + length:]
            self.handle(ftype, flags, sid, payload)
        self.flush()

    def handle(self, ftype, flags, sid, payload):
        if ftype == SETTINGS and not flags & ACK:
            for i in range(0, len(payload) - 5, 6):
                ident, value = struct.unpack(">HI", payload[i:i + 6])
                if ident == MAX_CONCURRENT_STREAMS:
                    self.max_streams = value
            self.send(frame(SETTINGS, ACK, 0))
        elif ftype == PING and not flags & ACK:
            self.send(frame(PING, ACK, 0, payload))
        elif ftype == GOAWAY:
            self.goaway = struct.unpack(">I", payload[4:8])[0]
        elif ftype == HEADERS:
            self.status.setdefault(sid, payload[:1] == b"\x88")
        elif ftype == DATA:
            self.data[sid] = self.data.get(sid, b"") + payload
            if payload:
                inc = struct.pack(">I", len(payload))
                self.send(frame(WINDOW_UPDATE, 0, 0, inc) +
                          (frame(WINDOW_UPDATE, 0, sid, inc) if not flags & END_STREAM
                           else b""))
        elif ftype == RST_STREAM:
            self.reset[sid] = struct.unpack(">I", payload[:4])[0]
        if ftype in (DATA, HEADERS) and flags & END_STREAM or ftype == RST_STREAM:
            self.ended.add(sid)
            self.open.discard(sid)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def pump(conns, until, deadline):
    """Reads every connection until `until()` holds or the deadline passes."""
    for c in conns:
        c.sock.setblocking(False)
    try:
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            live = [c for c in conns if not c.closed]
            if not live:
                return until()
            ready = [c for c in live if c.sock.pending()]
            if not ready:
                ready, _, _ = select.select(live, [], [], min(left, 0.2))
            for c in ready:
                c.read()
        return True
    finally:
        for c in conns:
            if not c.closed:
                c.sock.setblocking(True)
