//! The skeleton signature (`import.md`): SHA-256, lowercase hex, over the skin's joints in
//! `joints` order. The byte layout is the contract other tools compute too:
//!
//! ```text
//! u32 LE  joint count
//! for each joint:
//!     u32 LE  number of path segments
//!     for each segment:  u32 LE byte length, then the name's UTF-8 bytes
//!     i32 LE  index (in this list) of the nearest ancestor that is also a joint, or -1
//! ```

use sha2::{Digest, Sha256};

/// One joint as the signature sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureJoint<'a> {
    /// File names from the top-level root down to the joint (`GltfNode{index}` if unnamed).
    pub path: Vec<&'a str>,
    /// Index in the joint list of the nearest ancestor that is also a joint.
    pub parent: Option<usize>,
}

/// The bytes the signature hashes.
pub fn signature_bytes(joints: &[SignatureJoint<'_>]) -> Vec<u8> {
    let mut b = SignatureBytes::new(joints.len());
    for j in joints {
        b.joint(&j.path, j.parent);
    }
    b.0
}

/// [`signature_bytes`] written joint by joint (the importer streams its joints' paths).
pub struct SignatureBytes(Vec<u8>);

impl SignatureBytes {
    /// The bytes of `count` joints, the joints to follow.
    pub fn new(count: usize) -> Self {
        let mut b = Vec::with_capacity(4 + 64 * count);
        push_u32(&mut b, count);
        SignatureBytes(b)
    }

    /// The next joint: its path's names from the top-level root down, and its parent joint.
    pub fn joint(&mut self, path: &[&str], parent: Option<usize>) {
        let b = &mut self.0;
        push_u32(b, path.len());
        for seg in path {
            push_u32(b, seg.len());
            b.extend_from_slice(seg.as_bytes());
        }
        let p = parent.and_then(|p| i32::try_from(p).ok()).unwrap_or(-1);
        b.extend_from_slice(&p.to_le_bytes());
    }

    /// The signature of the joints written.
    pub fn signature(&self) -> String {
        sha256_hex(&self.0)
    }
}

fn push_u32(b: &mut Vec<u8>, n: usize) {
    b.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// The signature: lowercase hex SHA-256 of [`signature_bytes`].
pub fn signature(joints: &[SignatureJoint<'_>]) -> String {
    sha256_hex(&signature_bytes(joints))
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for &byte in digest.iter() {
        s.push(char::from(HEX[usize::from(byte >> 4)]));
        s.push(char::from(HEX[usize::from(byte & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_hash_equals_hash_of_bytes() {
        let j = [
            SignatureJoint {
                path: vec!["root", "a"],
                parent: None,
            },
            SignatureJoint {
                path: vec!["root", "a", "b"],
                parent: Some(0),
            },
        ];
        assert_eq!(signature(&j), sha256_hex(&signature_bytes(&j)));
    }

    #[test]
    fn sha256_of_abc() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
