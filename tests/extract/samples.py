"""Hostile and odd inputs for the extraction tests: encrypted PDFs, zip bombs, forged zips."""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile

from opindex.extract.samples import PdfBuilder, page_content, zip_bytes

MIB = 1024 * 1024

# The 32-byte padding string of the PDF Standard security handler (ISO 32000-1, 7.6.3.3).
_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
_PERMISSIONS = -4  # every permission bit set


def rc4(key: bytes, data: bytes) -> bytes:
    """RC4, as the PDF Standard security handler revision 2 uses it."""
    state = list(range(256))
    j = 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def _padded(password: str) -> bytes:
    return (password.encode("latin-1") + _PAD)[:32]


def encrypted_pdf(lines: list[str], *, user_password: str, owner_password: str) -> bytes:
    """A one-page PDF encrypted with 40-bit RC4 (Standard handler, V1 R2). With an empty
    user password any reader opens it without asking; with another one it needs it."""
    file_id = hashlib.md5(b"opindex test").digest()
    owner_key = hashlib.md5(_padded(owner_password)).digest()[:5]
    owner_entry = rc4(owner_key, _padded(user_password))
    permissions = struct.pack("<i", _PERMISSIONS)
    digest = hashlib.md5(_padded(user_password) + owner_entry + permissions + file_id)
    file_key = digest.digest()[:5]
    user_entry = rc4(file_key, _PAD)

    builder = PdfBuilder()
    catalog = builder.add(b"<< /Type /Catalog /Pages 2 0 R >>")
    builder.add(b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>")
    builder.add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    builder.add(
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
    )
    number = builder.next_number
    object_key = hashlib.md5(file_key + number.to_bytes(3, "little") + b"\x00\x00").digest()[:10]
    builder.add_stream(rc4(object_key, page_content(lines)))
    encrypt = builder.add(
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>"
        % (owner_entry.hex().encode(), user_entry.hex().encode(), _PERMISSIONS)
    )
    identifier = file_id.hex().encode()
    return builder.finish(
        catalog, b"/Encrypt %d 0 R /ID [<%s> <%s>] " % (encrypt, identifier, identifier)
    )


def zip_bomb_docx(uncompressed: int) -> bytes:
    """A DOCX whose ``word/document.xml`` inflates to ``uncompressed`` zero bytes (streamed
    in, so it never sits in memory; level 1 deflate of zeros is about 230:1)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            chunk = bytes(MIB)
            for _ in range(uncompressed // MIB):
                member.write(chunk)
    return out.getvalue()


def forge_declared_size(archive: bytes, name: str, declared: int) -> bytes:
    """``archive`` with ``name``'s central-directory entry claiming ``declared`` bytes
    uncompressed (the local header and the data are left as they are)."""
    forged = bytearray(archive)
    position = forged.find(b"PK\x01\x02")
    while position >= 0:
        name_length = struct.unpack_from("<H", forged, position + 28)[0]
        if forged[position + 46 : position + 46 + name_length] == name.encode():
            struct.pack_into("<L", forged, position + 24, declared)
            return bytes(forged)
        position = forged.find(b"PK\x01\x02", position + 4)
    raise ValueError(f"{name} is not in the archive")


def lying_docx(actual: int, declared: int) -> bytes:
    """A DOCX whose document.xml inflates to ``actual`` bytes while its central directory
    declares ``declared``."""
    paragraph = b"<w:p><w:r><w:t>lie</w:t></w:r></w:p>"
    body = paragraph * (actual // len(paragraph))
    real = zip_bytes({"[Content_Types].xml": "<Types/>", "word/document.xml": body})
    return forge_declared_size(real, "word/document.xml", declared)


def many_members_zip(count: int) -> bytes:
    """A DOCX-like zip with ``count`` tiny extra members."""
    members: dict[str, str | bytes] = {"word/document.xml": "<w:document/>"}
    members.update({f"word/media/m{index}.bin": b"x" for index in range(count)})
    return zip_bytes(members)


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{level} "{("&lol" + str(level - 1) + ";") * 10}">' for level in range(2, 10)
    ).replace("&lol1;", "&lol;")
    + ']>\n<w:document xmlns:w="urn:w"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>'
    "</w:body></w:document>"
)
