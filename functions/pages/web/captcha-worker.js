// Solves the survey's proof-of-work challenge (contract section 16) off
// the page's thread: finds the first decimal nonce such that SHA-256 of
// salt + ":" + nonce has `difficulty` leading zero bits. The message is
// at most 53 ASCII bytes, one SHA-256 block, hashed here in plain
// JavaScript (crypto.subtle's promise per hash costs more than the hash).
"use strict";
var K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
var W = new Int32Array(64), H = new Int32Array(8), bytes = new Uint8Array(64);

// hash hashes bytes[0:n] (n <= 55) into H.
function hash(n) {
  var i;
  for (i = n + 1; i < 64; i++) bytes[i] = 0;
  bytes[n] = 0x80;
  bytes[62] = (n * 8) >>> 8; bytes[63] = (n * 8) & 0xff;
  for (i = 0; i < 16; i++) W[i] = bytes[4 * i] << 24 | bytes[4 * i + 1] << 16 | bytes[4 * i + 2] << 8 | bytes[4 * i + 3];
  for (i = 16; i < 64; i++) {
    var x = W[i - 15], y = W[i - 2];
    var s0 = (x >>> 7 | x << 25) ^ (x >>> 18 | x << 14) ^ (x >>> 3);
    var s1 = (y >>> 17 | y << 15) ^ (y >>> 19 | y << 13) ^ (y >>> 10);
    W[i] = W[i - 16] + s0 + W[i - 7] + s1 | 0;
  }
  var a = 0x6a09e667, b = 0xbb67ae85 | 0, c = 0x3c6ef372, d = 0xa54ff53a | 0, e = 0x510e527f, f = 0x9b05688c | 0, g = 0x1f83d9ab, h = 0x5be0cd19;
  for (i = 0; i < 64; i++) {
    var S1 = (e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7);
    var t1 = h + S1 + (e & f ^ ~e & g) + K[i] + W[i] | 0;
    var S0 = (a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10);
    var t2 = S0 + (a & b ^ a & c ^ b & c) | 0;
    h = g; g = f; f = e; e = d + t1 | 0; d = c; c = b; b = a; a = t1 + t2 | 0;
  }
  H[0] = a + 0x6a09e667 | 0; H[1] = b + (0xbb67ae85 | 0) | 0;
}

// zeros counts the leading zero bits of the hash's first 64 bits.
function zeros() {
  if (H[0] !== 0) return Math.clz32(H[0]);
  return 32 + Math.clz32(H[1]);
}

self.onmessage = function (ev) {
  var salt = ev.data.salt, difficulty = ev.data.difficulty, start = Date.now();
  var prefix = salt.length + 1, i;
  for (i = 0; i < salt.length; i++) bytes[i] = salt.charCodeAt(i);
  bytes[salt.length] = 58; // ":"
  for (var nonce = 0; ; nonce++) {
    var s = String(nonce);
    for (i = 0; i < s.length; i++) bytes[prefix + i] = s.charCodeAt(i);
    hash(prefix + s.length);
    if (zeros() >= difficulty) {
      self.postMessage({ nonce: s, tries: nonce + 1, ms: Date.now() - start });
      return;
    }
  }
};
