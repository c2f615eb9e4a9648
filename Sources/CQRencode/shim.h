/* libqrencode draws the kiosk's certificate QR codes (Sources/KioskBridge/CertificateCode.swift); the bridge calls
   QRcode_encodeData and QRcode_free alone, which Swift calls directly. */
#include <qrencode.h>
