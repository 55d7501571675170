import forge from "node-forge";

const { asn1, pki } = forge;

export interface KeystoreEntry {
  key: string;
  cert: string;
  alias?: string;
}

/**
 * Test support: a PKCS12 keystore holding several key entries, as keytool would write it. forge
 * writes one key per file, so the entries' safe contents are merged and the MAC is computed over
 * the result with the store password; keys may be encrypted with a different key password.
 */
export function pkcs12Keystore(entries: KeystoreEntry[], options: { storePassword: string; keyPassword?: string }): Buffer {
  const contents = entries.flatMap((entry) => {
    const single = forge.pkcs12.toPkcs12Asn1(pki.privateKeyFromPem(entry.key), [pki.certificateFromPem(entry.cert)], options.keyPassword ?? options.storePassword, {
      useMac: false,
      algorithm: "aes256",
      ...(entry.alias !== undefined ? { friendlyName: entry.alias } : {}),
    });
    const octets = ((single.value as forge.asn1.Asn1[])[1].value as forge.asn1.Asn1[])[1].value as forge.asn1.Asn1[];
    return asn1.fromDer(octets[0].value as string).value as forge.asn1.Asn1[];
  });
  const safe = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, contents);
  const safeDer = asn1.toDer(safe).getBytes();

  const salt = forge.util.createBuffer(forge.random.getBytesSync(8));
  const iterations = 2048;
  const macKey = forge.pkcs12.generateKey(options.storePassword, salt, 3, iterations, 20);
  const hmac = forge.hmac.create();
  hmac.start("sha1", macKey);
  hmac.update(safeDer);
  const macData = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
        asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(pki.oids.sha1).getBytes()),
        asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ""),
      ]),
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, hmac.digest().getBytes()),
    ]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, salt.getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(iterations).getBytes()),
  ]);
  const pfx = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(3).getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(pki.oids.data).getBytes()),
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, safeDer)]),
    ]),
    macData,
  ]);
  return Buffer.from(asn1.toDer(pfx).getBytes(), "binary");
}
