(Binput_0JPBy\£î”só£RÕ=
A*xŒW‹ÛKtW¼X-u€ÚŞÕ|fÛÍsaóók›ãÒƒ¹ÏšöC`ÌFIrÅ}lË©X£´£{D<n(